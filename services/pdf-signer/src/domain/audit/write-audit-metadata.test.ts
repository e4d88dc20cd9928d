import { describe, expect, it } from 'vitest';
import { PDFHexString, PDFString } from 'pdf-lib';
import { pdfText, xmlText } from './write-audit-metadata';

describe('xmlText', () => {
  it('returns printable ASCII without XML specials as it is', () => {
    expect(xmlText('Ada Lovelace, ada@example.com')).toBe('Ada Lovelace, ada@example.com');
    expect(xmlText('')).toBe('');
  });

  it('escapes the five XML specials', () => {
    expect(xmlText(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(xmlText('Zoë & <Ünal>')).toBe('Zoë &amp; &lt;Ünal&gt;');
  });

  it('drops what XML 1.0 forbids and keeps tabs, newlines and characters beyond the BMP', () => {
    expect(xmlText('a\u0000b\u0008c\u001fd\uFFFEe')).toBe('abcde');
    expect(xmlText('a\tb\nc\rd')).toBe('a\tb\nc\rd');
    expect(xmlText('名前 😀 \u{10FFFD}')).toBe('名前 😀 \u{10FFFD}');
    expect(xmlText('lone \uD800 surrogate')).toBe('lone  surrogate');
  });
});

describe('pdfText', () => {
  it('writes printable ASCII as an escaped literal and anything else as UTF-16 hex', () => {
    const literal = pdfText('a (b) \\ c');
    expect(literal).toBeInstanceOf(PDFString);
    expect(literal.toString()).toBe('(a \\(b\\) \\\\ c)');
    expect(pdfText('Zoë')).toBeInstanceOf(PDFHexString);
  });
});

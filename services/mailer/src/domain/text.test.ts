import { describe, expect, it } from 'vitest';
import { escapeHtml, oneLine, paragraphsHtml, signedFileName } from './text';

describe('oneLine', () => {
  it('turns CR, LF, other control characters and line separators into single spaces', () => {
    expect(oneLine('a\r\nBcc: x@y.z\u0000\u2028b\tc')).toBe('a Bcc: x@y.z b c');
  });
  it('cuts long text with an ellipsis', () => {
    expect(oneLine('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('escapeHtml', () => {
  it('escapes what could open a tag or leave an attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
  it('keeps paragraphs and line breaks of user text, escaped', () => {
    expect(paragraphsHtml('one <b>\r\ntwo\n\nthree')).toBe(
      '<p style="margin:0 0 12px">one &lt;b&gt;<br>two</p><p style="margin:0 0 12px">three</p>',
    );
  });
});

describe('signedFileName', () => {
  it('names the signed copy after the original', () => {
    expect(signedFileName('Contract.PDF')).toBe('Contract-signed.pdf');
    expect(signedFileName('.pdf')).toBe('document-signed.pdf');
  });
});

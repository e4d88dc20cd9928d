import { describe, expect, it } from 'vitest';
import { escapeHtml } from './html';

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute value', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;',
    );
  });

  it('escapes an ampersand once, so entities in the text stay visible as written', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('leaves everything else as it is, non-ASCII included', () => {
    expect(escapeHtml('Договор v2 — signed.pdf')).toBe('Договор v2 — signed.pdf');
  });
});

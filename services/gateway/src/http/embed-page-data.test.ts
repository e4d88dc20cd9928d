import { describe, expect, it } from 'vitest';
import { withEmbedData } from './embed-page-data';

const PAGE = '<!doctype html><html><head><title>Envelope</title></head><body></body></html>';

describe('the embed data of an embedded link page', () => {
  it('goes into the head as a meta whose content is the JSON, escaped as an attribute', () => {
    const sut = withEmbedData(PAGE, {
      origins: ['https://app.example.com'],
      refused: { status: 'used', title: 'Link already used', message: `It's "used" <b>once</b> & done` },
    });

    const meta = /<meta name="esign-embed" content="([^"]*)">\n<\/head>/.exec(sut);
    expect(meta?.[1]).toBeDefined();
    const decoded = (meta?.[1] ?? '')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(JSON.parse(decoded)).toEqual({
      origins: ['https://app.example.com'],
      refused: { status: 'used', title: 'Link already used', message: `It's "used" <b>once</b> & done` },
    });
    expect(sut).not.toContain('<b>once</b>');
  });
});

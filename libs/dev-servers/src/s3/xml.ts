/** The S3 XML namespace of every result document. */
export const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
export const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

export const xmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );

export const xmlUnescape = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[name] ?? '';
    },
  );

/**
 * Keys in listings with `encoding-type=url`. Clients decode them with decodeURIComponent after an XML
 * parser that turns number-like text into numbers and trims spaces, so a leading digit, sign or dot is
 * escaped too: "007" must come back as "007", not 7.
 */
export const urlEncodeKey = (key: string) => {
  const encoded = encodeURIComponent(key).replace(/%2F/g, '/');
  const first = encoded.charCodeAt(0);
  return (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46
    ? `%${first.toString(16).toUpperCase()}${encoded.slice(1)}`
    : encoded;
};

/** An ETag as a client sends it back (quoted, maybe XML-escaped) to the bare token. */
export const stripQuotes = (etag: string) => xmlUnescape(etag.trim()).replace(/^"|"$/g, '');

/** HTML-escape text for element content and attribute values alike. */
export const escapeHtml = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * One line of header-safe text: CR, LF and every other control character (and the Unicode line and
 * paragraph separators) become a space, runs of spaces collapse, and the result is cut to `max`.
 * A subject made of this can carry no second header, whatever the sender typed.
 */
export const oneLine = (text: string, max = 200): string => {
  const flat = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Multi-line user text (a message, a reason) as HTML: escaped, line breaks kept. */
export const paragraphsHtml = (text: string): string =>
  text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((p) => `<p style="margin:0 0 12px">${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

/** `2026-11-23 20:55 UTC`: unambiguous for every reader, whatever their locale. */
export const formatUtc = (iso: string): string => {
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

/** The signed copy's file name: `contract.pdf` -> `contract-signed.pdf`. */
export const signedFileName = (fileName: string): string =>
  `${oneLine(fileName, 200).replace(/\.pdf$/i, '') || 'document'}-signed.pdf`;

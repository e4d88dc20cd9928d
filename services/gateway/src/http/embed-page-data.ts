import { escapeHtml } from './html';

/** Why the gateway refused an embedded link's page (its 410), as the page tells the sender's site. */
export interface TEmbedRefusal {
  /** An ended link's status (`completed`, `declined`, `canceled`, `expired`, `acted`) or `used`. */
  readonly status: string;
  readonly title: string;
  readonly message: string;
}

/**
 * What an embedded link's page must know before its first call: the origins it may post its events
 * to and, when the link was refused, why. The origins are no secret from the page's holder: the same
 * list is the page's `frame-ancestors`.
 */
export interface TEmbedPageData {
  readonly origins: readonly string[];
  readonly refused?: TEmbedRefusal;
}

/**
 * The built envelope page with `data` in `<meta name="esign-embed" content="…">` (JSON, escaped as an
 * attribute value), read by `web/envelope/embed.ts`. A meta rather than an inline script: the CSP
 * allows no inline script.
 */
export const withEmbedData = (html: string, data: TEmbedPageData): string => {
  const meta = `<meta name="esign-embed" content="${escapeHtml(JSON.stringify(data))}">`;
  const at = html.indexOf('</head>');
  return at === -1 ? `${meta}\n${html}` : `${html.slice(0, at)}${meta}\n${html.slice(at)}`;
};

/**
 * The envelope page inside a frame of the sender's site (an embedded recipient's signing URL): it tells
 * its parent what happens with `postMessage`, to the one origin actually framing it and only when that
 * origin is one of the account's embed origins. Never to `'*'`: a page framed by anyone else says
 * nothing. The gateway's `frame-ancestors` already keeps other origins from framing it; this keeps the
 * events from going anywhere else too.
 *
 * The origins come with the page itself (the gateway writes them into an embedded link's page, see
 * `embedDataOfPage`), so the page can tell its parent even when its very first call fails; the
 * recipient view lists them too.
 *
 * Messages: `{ source: 'esign', type, detail }` with `type` one of `loaded` (the document is on screen),
 * `viewed` (the view was recorded), `signed`, `approved`, `declined`, `error` (`detail.message`, and
 * `detail.status` for an ended, unknown or used link). At most one `error`, and none once the recipient
 * acted.
 */

export type EmbedEventType = 'loaded' | 'viewed' | 'signed' | 'approved' | 'declined' | 'error';

/** Why the gateway refused to open the link (its 410 for an embedded link is this page, told why). */
export interface EmbedRefusal {
  readonly status: string;
  readonly title: string;
  readonly message: string;
}

/** What the gateway wrote into an embedded link's page (`<meta name="esign-embed">`). */
export interface EmbedPageData {
  readonly origins: readonly string[];
  readonly refused?: EmbedRefusal;
}

/** Where this page's events go: the framing origin when it is allowed, else nowhere. */
let target: string | undefined;
let acted = false;
let erred = false;

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const refusalOf = (value: unknown): EmbedRefusal | undefined => {
  if (value === null || typeof value !== 'object') return undefined;
  const { status, title, message } = value as Record<string, unknown>;
  return typeof status === 'string' && typeof title === 'string' && typeof message === 'string'
    ? { status, title, message }
    : undefined;
};

/**
 * The embed data the gateway wrote into this page, for an embedded link only (an emailed link's page
 * has none): the account's origins and, when the gateway refused the link (410), why.
 */
export const embedDataOfPage = (): EmbedPageData | undefined => {
  const content = document.querySelector<HTMLMetaElement>('meta[name="esign-embed"]')?.content;
  if (!content) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object') return undefined;
  const { origins, refused } = data as Record<string, unknown>;
  if (!isStrings(origins)) return undefined;
  const refusal = refusalOf(refused);
  return refusal ? { origins, refused: refusal } : { origins };
};

/**
 * The origin framing this page, if it is one of `allowed`: `location.ancestorOrigins[0]` where the
 * browser has it (Chromium, Safari), else the origin of `document.referrer` (the parent's page that
 * loaded the frame; Firefox).
 */
const framingOrigin = (allowed: readonly string[]): string | undefined => {
  if (window.parent === window) return undefined;
  const ancestors = window.location.ancestorOrigins as DOMStringList | undefined;
  let origin: string | undefined;
  if (ancestors && ancestors.length > 0) origin = ancestors.item(0) ?? undefined;
  else if (document.referrer) {
    try {
      origin = new URL(document.referrer).origin;
    } catch {
      origin = undefined;
    }
  }
  return origin !== undefined && allowed.includes(origin) ? origin : undefined;
};

/** Start talking to the parent, when the page is an embedded link's framed by an allowed origin. */
export const connectParent = (embedOrigins: readonly string[] | undefined): void => {
  target = embedOrigins && embedOrigins.length > 0 ? framingOrigin(embedOrigins) : undefined;
};

/** Tell the parent (if any is allowed) what happened: one `error` at most, none after an act. */
export const tellParent = (type: EmbedEventType, detail: Record<string, unknown> = {}): void => {
  if (type === 'error') {
    if (acted || erred) return;
    erred = true;
  }
  if (type === 'signed' || type === 'approved' || type === 'declined') acted = true;
  if (target === undefined) return;
  window.parent.postMessage({ source: 'esign', type, detail }, target);
};

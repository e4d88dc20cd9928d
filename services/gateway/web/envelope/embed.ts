/**
 * The envelope page inside a frame of the sender's site (an embedded recipient's signing URL): it tells
 * its parent what happens with `postMessage`, to the one origin actually framing it and only when that
 * origin is one of the account's embed origins (the recipient view lists them). Never to `'*'`: a page
 * framed by anyone else says nothing. The gateway's `frame-ancestors` already keeps other origins from
 * framing it; this keeps the events from going anywhere else too.
 *
 * Messages: `{ source: 'esign', type, detail }` with `type` one of `loaded` (the document is on screen),
 * `viewed` (the view was recorded), `signed`, `approved`, `declined`, `error` (`detail.message`, and
 * `detail.status` for an ended link). Once the recipient acted no `error` follows.
 */

export type EmbedEventType = 'loaded' | 'viewed' | 'signed' | 'approved' | 'declined' | 'error';

/** Where this page's events go: the framing origin when it is allowed, else nowhere. */
let target: string | undefined;
let acted = false;

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

/** Tell the parent (if any is allowed) what happened. */
export const tellParent = (type: EmbedEventType, detail: Record<string, unknown> = {}): void => {
  if (type === 'error' && acted) return;
  if (type === 'signed' || type === 'approved' || type === 'declined') acted = true;
  if (target === undefined) return;
  window.parent.postMessage({ source: 'esign', type, detail }, target);
};

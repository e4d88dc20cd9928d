/**
 * The one check of an embed origin, with no import at all: `ZEmbedOrigin` (account.ts) wraps it for
 * the API and key service, and the dashboard's page takes it from `@esign/contracts/embed-origin`
 * without bundling zod, so the form refuses exactly what the API refuses, in the same words.
 */

/** At most this many origins may frame an account's embedded signing pages. */
export const MAX_EMBED_ORIGINS = 10;
/** Longest origin accepted as typed (before the browser's serialisation). */
export const MAX_EMBED_ORIGIN_LENGTH = 300;

const LOOPBACK_HOST = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** An origin as a browser names it, or why the text is not one. */
export type EmbedOriginCheck = { readonly origin: string } | { readonly error: string };

/**
 * `https://host[:port]` (no path, query, fragment or credentials), `http://` only for a loopback host
 * (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`), answered as the browser serialises it (lower
 * case, default port dropped): what `frame-ancestors`, `postMessage` and `event.origin` compare.
 * The length limit is the schema's (`MAX_EMBED_ORIGIN_LENGTH`), checked before this.
 */
export const checkEmbedOrigin = (value: string): EmbedOriginCheck => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: `${value.slice(0, 100)} is not an origin (https://host[:port])` };
  }
  const bare =
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    url.pathname === '/' &&
    !/[?#]$/.test(value);
  if (!bare || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return { error: `${value.slice(0, 100)} is not an origin: https://host[:port], without a path` };
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    return { error: `${url.origin}: http is allowed for localhost only; use https` };
  }
  return { origin: url.origin };
};

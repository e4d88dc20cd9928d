import { ServiceError } from '@esign/contracts';
import { escapeHtml } from './html';
import { isSigningToken, signingTokenHash } from './signing-token';
import { WEB_CONTENT_SECURITY_POLICY } from './web-pages';

/**
 * What the pages behind a link share (send's `/s/<token>`, an envelope's `/e/<token>`): their
 * headers, the small page without script for a link that cannot be used, and the token their
 * scripts send in `X-Signing-Token`, hashed.
 */

/** Headers of a link's page: our own content only, never cached, never indexed, no referrer. */
export const LINK_PAGE_HEADERS = {
  'Content-Security-Policy': WEB_CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
};

/** A small page without script for links that cannot be used (unknown, or ended). */
export const linkMessagePage = (title: string, message: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f3f4f6;color:#111827}
main{max-width:36rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
h1{font-size:1.4rem;margin-top:0}
p{line-height:1.5}
</style>
</head>
<body>
<main role="main">
<h1>${escapeHtml(title)}</h1>
<p id="message">${escapeHtml(message)}</p>
</main>
</body>
</html>
`;

/**
 * The token of a page call, hashed; an absent or malformed one is an unknown link: `not_found` with
 * `unknownMessage` (each page says it in its own words).
 */
export const linkTokenOf = (
  headers: { 'X-Signing-Token'?: string | undefined },
  unknownMessage: string,
): { hash: string } => {
  const token = headers['X-Signing-Token'];
  if (!token || !isSigningToken(token)) throw new ServiceError('not_found', unknownMessage);
  return { hash: signingTokenHash(token) };
};

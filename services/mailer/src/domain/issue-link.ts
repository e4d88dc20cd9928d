import { ServiceError } from '@esign/contracts';
import type { TSkip } from './deliver-email';
import { generateSigningToken } from './signing-token';

/**
 * Make a link for one email: a fresh 256-bit token whose SHA-256 alone goes to the owner of what the
 * link opens (document-store, through `attach`); the token itself exists only in the returned URL,
 * `<publicBaseUrl>/<path>/<token>`, which goes into the email and nowhere else. `conflict` or
 * `not_found` (nothing to act on any more) is a skip, not a failure.
 */
export const issueLink = async (input: {
  publicBaseUrl: string;
  /** The page the link opens: `s` (a signing request), `e` (an envelope). */
  path: string;
  attach: (tokenHash: string) => Promise<{ expiresAt: string }>;
}): Promise<{ url: string; expiresAt: string } | TSkip> => {
  const { token, tokenHash } = generateSigningToken();
  try {
    const { expiresAt } = await input.attach(tokenHash);
    return { url: `${input.publicBaseUrl.replace(/\/+$/, '')}/${input.path}/${token}`, expiresAt };
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'conflict' || err.code === 'not_found')) {
      return { skip: `no link attached: ${err.code}: ${err.message}` };
    }
    throw err;
  }
};

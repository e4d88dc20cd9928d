import { ServiceError } from '@esign/contracts';
import type { TSkip } from './deliver-email';
import { generateSigningToken } from './signing-token';

/** `signing.attach-link` as the mailer uses it (a bus request in production). */
export type AttachLink = (request: {
  sendId: string;
  eventId: string;
  tokenHash: string;
  mode: 'replace' | 'add';
}) => Promise<{ expiresAt: string }>;

/**
 * Make a signing link for one email: a fresh 256-bit token whose SHA-256 alone goes to the owner of
 * the request (document-store); the token itself exists only in the returned URL, which goes into the
 * email and nowhere else. A request that is no longer pending (or unknown) is a skip, not a failure.
 */
export const issueSigningLink = async (
  deps: { attachLink: AttachLink; publicBaseUrl: string },
  input: { sendId: string; eventId: string; mode: 'replace' | 'add' },
): Promise<{ url: string; expiresAt: string } | TSkip> => {
  const { token, tokenHash } = generateSigningToken();
  try {
    const { expiresAt } = await deps.attachLink({ ...input, tokenHash });
    return { url: `${deps.publicBaseUrl.replace(/\/+$/, '')}/s/${token}`, expiresAt };
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'conflict' || err.code === 'not_found')) {
      return { skip: `no link attached: ${err.code}: ${err.message}` };
    }
    throw err;
  }
};

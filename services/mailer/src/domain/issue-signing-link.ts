import type { TSkip } from './deliver-email';
import { issueLink } from './issue-link';

/** `signing.attach-link` as the mailer uses it (a bus request in production). */
export type AttachLink = (request: {
  sendId: string;
  eventId: string;
  tokenHash: string;
  mode: 'replace' | 'add';
}) => Promise<{ expiresAt: string }>;

/**
 * Make a signing link (`/s/<token>`) for one email: only the token's SHA-256 goes to document-store
 * (`signing.attach-link`). A request that is no longer pending (or unknown) is a skip, not a failure.
 */
export const issueSigningLink = (
  deps: { attachLink: AttachLink; publicBaseUrl: string },
  input: { sendId: string; eventId: string; mode: 'replace' | 'add' },
): Promise<{ url: string; expiresAt: string } | TSkip> =>
  issueLink({
    publicBaseUrl: deps.publicBaseUrl,
    path: 's',
    attach: (tokenHash) => deps.attachLink({ ...input, tokenHash }),
  });

import type { TSkip } from './deliver-email';
import { issueLink } from './issue-link';

/** `envelope.attach-link` as the mailer uses it (a bus request in production; never `embedded`). */
export type AttachEnvelopeLink = (request: {
  recipientId: string;
  eventId: string;
  tokenHash: string;
  mode: 'replace' | 'add';
}) => Promise<{ expiresAt: string }>;

/**
 * Make an envelope recipient's link (`/e/<token>`) for one email: only the token's SHA-256 goes to
 * document-store (`envelope.attach-link`). A recipient who can no longer act (the envelope ended, they
 * acted, it is not their group's turn) or is unknown is a skip, not a failure.
 */
export const issueEnvelopeLink = (
  deps: { attachEnvelopeLink: AttachEnvelopeLink; publicBaseUrl: string },
  input: { recipientId: string; eventId: string; mode: 'replace' | 'add' },
): Promise<{ url: string; expiresAt: string } | TSkip> =>
  issueLink({
    publicBaseUrl: deps.publicBaseUrl,
    path: 'e',
    attach: (tokenHash) => deps.attachEnvelopeLink({ ...input, tokenHash }),
  });

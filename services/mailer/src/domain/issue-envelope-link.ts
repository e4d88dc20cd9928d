import type { TSkip } from './deliver-email';
import { generateEmailCode } from './email-code';
import { issueLink } from './issue-link';

/** `envelope.attach-link` as the mailer uses it (a bus request in production; never `embedded`). */
export type AttachEnvelopeLink = (request: {
  recipientId: string;
  eventId: string;
  tokenHash: string;
  mode: 'replace' | 'add';
  codeHash?: string;
}) => Promise<{ expiresAt: string; codeExpiresAt?: string | undefined }>;

/** A link's one-time code, for its own email (held in memory only). */
export interface TIssuedCode {
  readonly code: string;
  readonly expiresAt: string;
}

/**
 * Make an envelope recipient's link (`/e/<token>`) for one email: only the token's SHA-256 goes to
 * document-store (`envelope.attach-link`). With `withCode` (a `requireEmailCode` recipient) a one-time
 * code is made too and attached as its hash; the code is answered for its own email, with the token's
 * hash (recorded with the sent email: a retry of the code's email binds a new code to it). A recipient who
 * can no longer act (the envelope ended, they acted, it is not their group's turn) or is unknown is a
 * skip, not a failure.
 */
export const issueEnvelopeLink = async (
  deps: { attachEnvelopeLink: AttachEnvelopeLink; publicBaseUrl: string },
  input: { recipientId: string; eventId: string; mode: 'replace' | 'add'; withCode?: boolean },
): Promise<{ url: string; expiresAt: string; code?: TIssuedCode; linkTokenHash?: string } | TSkip> => {
  const { withCode, ...request } = input;
  let code: TIssuedCode | undefined;
  let linkTokenHash: string | undefined;
  const link = await issueLink({
    publicBaseUrl: deps.publicBaseUrl,
    path: 'e',
    attach: async (tokenHash) => {
      const made = withCode ? generateEmailCode(tokenHash) : undefined;
      const attached = await deps.attachEnvelopeLink({
        ...request,
        tokenHash,
        ...(made ? { codeHash: made.codeHash } : {}),
      });
      if (made && attached.codeExpiresAt) {
        code = { code: made.code, expiresAt: attached.codeExpiresAt };
        linkTokenHash = tokenHash;
      }
      return attached;
    },
  });
  if ('skip' in link) return link;
  return code ? { ...link, code, linkTokenHash } : link;
};

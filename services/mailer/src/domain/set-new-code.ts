import { ServiceError } from '@esign/contracts';
import type { TSkip } from './deliver-email';
import { generateEmailCode } from './email-code';
import type { TIssuedCode } from './issue-envelope-link';

/** `envelope.set-code` as the mailer uses it (a bus request in production). */
export type SetEnvelopeCode = (request: {
  tokenHash: string;
  codeHash: string;
  eventId: string;
}) => Promise<{ codeExpiresAt: string }>;

/**
 * A new one-time code for the link whose token hashes to `tokenHash`: made here, its hash stored on the
 * link (`envelope.set-code`, replacing the link's earlier code; its tries start again), the code itself
 * answered for its email only. A link that needs no code any more (verified, the envelope ended, the
 * recipient acted, the link was replaced) is a skip.
 */
export const setNewCode = async (
  deps: { setEnvelopeCode: SetEnvelopeCode },
  input: { tokenHash: string; eventId: string },
): Promise<TIssuedCode | TSkip> => {
  const made = generateEmailCode(input.tokenHash);
  try {
    const { codeExpiresAt } = await deps.setEnvelopeCode({
      tokenHash: input.tokenHash,
      codeHash: made.codeHash,
      eventId: input.eventId,
    });
    return { code: made.code, expiresAt: codeExpiresAt };
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'conflict' || err.code === 'not_found')) {
      return { skip: `no code set: ${err.code}: ${err.message}` };
    }
    throw err;
  }
};

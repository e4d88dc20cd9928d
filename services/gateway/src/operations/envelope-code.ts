import { ServiceError } from '@esign/contracts';
import type { EnvelopePorts, TCodeRequested, TCodeVerification, TEnvelopeLink } from './envelope-ports';

/**
 * One-time email codes of `requireEmailCode` recipients, on the gateway's side: until the link's code
 * is verified nothing of the document is given (its bytes, a view, a signature, an approval, a
 * decline); the page asks for the code first (`verify-code`) and may ask for a new one
 * (`request-code`). document-store keeps the code's hash, its expiry and its tries, and refuses the
 * same acts on its own.
 */

export const CODE_REQUIRED_MESSAGE = 'Enter the one-time code we emailed you before you open this document.';

/** The link needs its code first: HTTP 403 `{ error, codeRequired: true }`. */
export class EnvelopeCodeRequiredError extends Error {
  constructor() {
    super(CODE_REQUIRED_MESSAGE);
    this.name = 'EnvelopeCodeRequiredError';
  }
}

/** Refuse while the link still needs its code. */
export const requireCodeVerified = (link: TEnvelopeLink): void => {
  if (link.codeRequired) throw new EnvelopeCodeRequiredError();
};

/** What the page is told of a code it sent. */
export const CODE_MESSAGES = {
  verified: 'Code accepted.',
  wrong: (left: number) =>
    `That code is not right. ${left} ${left === 1 ? 'try' : 'tries'} left before it stops working.`,
  expired: 'This code has expired. Ask for a new code.',
  locked: 'Too many wrong tries: this code no longer works. Ask for a new code.',
  notNeeded: 'This link needs no code.',
} as const;

/** Check a code for `link` (found acting); `conflict` (with words for a person) when it needs none. */
export const verifyEnvelopeCode = async (
  ports: EnvelopePorts,
  link: TEnvelopeLink,
  input: { tokenHash: string; code: string; ipAddress: string; userAgent: string },
): Promise<TCodeVerification> => {
  if (!link.codeRequired) throw new ServiceError('conflict', CODE_MESSAGES.notNeeded);
  return ports.verifyCode(input);
};

/** Ask for a new code for `link` (found acting; the mailer emails it); `rate_limited` after 5 in an hour. */
export const requestEnvelopeCode = async (
  ports: EnvelopePorts,
  link: TEnvelopeLink,
  tokenHash: string,
): Promise<TCodeRequested> => {
  if (!link.codeRequired) throw new ServiceError('conflict', CODE_MESSAGES.notNeeded);
  return ports.requestCode(tokenHash).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'rate_limited') {
      throw new ServiceError(
        'rate_limited',
        'You asked for too many codes. Use the last one we sent, or try again in an hour.',
      );
    }
    if (err instanceof ServiceError && err.code === 'conflict') {
      throw new ServiceError('conflict', CODE_MESSAGES.notNeeded);
    }
    throw err;
  });
};

import { createHash, randomInt } from 'node:crypto';

/**
 * A one-time code for a `requireEmailCode` recipient's link: 6 digits from the CSPRNG. Only its hash,
 * SHA-256 hex of `<tokenHash>:<code>` (the link's token hash binds it to that link), leaves the mailer
 * (`envelope.attach-link` `codeHash`, `envelope.set-code`); the code itself is only in its email, never
 * in a table, an event or a log line.
 */
export interface TEmailCode {
  readonly code: string;
  readonly codeHash: string;
}

/** The hash document-store keeps of a link's code (it computes the same from what the page sends). */
export const envelopeCodeHash = (tokenHash: string, code: string): string =>
  createHash('sha256').update(`${tokenHash}:${code}`).digest('hex');

export const generateEmailCode = (tokenHash: string): TEmailCode => {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return { code, codeHash: envelopeCodeHash(tokenHash, code) };
};

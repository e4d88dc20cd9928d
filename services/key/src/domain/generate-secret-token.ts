import { createHash, randomBytes } from 'node:crypto';

/** A new secret token with its SHA-256. Only `tokenHash` may be stored. */
export interface SecretToken {
  /** 256 bits from the system CSPRNG, base64url (43 characters). */
  readonly token: string;
  /** SHA-256 of `token` (its UTF-8 text), lowercase hex. */
  readonly tokenHash: string;
}

/** SHA-256 of a token's text, lowercase hex: how sessions and sign-in tokens are stored and looked up. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A session token, sign-in token or CSRF secret: 256 random bits. */
export const generateSecretToken = (): SecretToken => {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashToken(token) };
};

import { createHash, randomBytes } from 'node:crypto';

/** A signing link's secret: the token goes into one email, only its hash anywhere else. */
export interface TSigningToken {
  /** 256 bits from the CSPRNG, base64url (43 characters): the `<token>` of `/s/<token>`. */
  readonly token: string;
  /** SHA-256 of the token's text (UTF-8 of the base64url string), lowercase hex. */
  readonly tokenHash: string;
}

/** SHA-256 of a token as the gateway will compute it from the link. */
export const hashSigningToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const generateSigningToken = (): TSigningToken => {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashSigningToken(token) };
};

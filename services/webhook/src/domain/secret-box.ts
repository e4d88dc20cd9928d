import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Endpoint secrets at rest: AES-256-GCM under the operator's WEBHOOK_SECRET_KEY, a fresh 96-bit IV per
 * secret, and the endpoint's id as additional data (a ciphertext copied to another row does not
 * decrypt). Stored as `v1.<iv>.<ciphertext+tag>` (base64url). A secret must be read back to sign with
 * it, so a hash cannot do.
 */
export interface SecretBox {
  seal(plain: string, endpointId: string): string;
  open(sealed: string, endpointId: string): string;
}

export const createSecretBox = (keyBase64: string): SecretBox => {
  const key = Buffer.from(keyBase64, 'base64');
  if (key.length !== 32) throw new Error('the webhook secret key must be 32 bytes');
  return {
    seal(plain, endpointId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(endpointId));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, endpointId) {
      const [version, ivText, bodyText] = sealed.split('.');
      if (version !== 'v1' || !ivText || !bodyText) throw new Error('not a sealed webhook secret');
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString(
        'utf8',
      );
    },
  };
};

import { ServiceError, type TPrincipal } from '@esign/contracts';
import { LAST_USED_RESOLUTION_MS, type KeyRepository } from '../db/key-repository';
import { hasApiAccess } from './has-api-access';

/**
 * Resolve a key hash to its principal; `unauthenticated` when the key is unknown or revoked.
 *
 * "Last used" stays off the answer's path: when the stored time is more than LAST_USED_RESOLUTION_MS
 * old, the write is started and not waited for (a failure is only reported to `onBackgroundError`),
 * so verification costs one read, and a write at most about once a minute per key.
 */
export const verifyKey = async (options: {
  keys: KeyRepository;
  keyHash: string;
  now?: Date;
  onBackgroundError?: (err: unknown) => void;
}): Promise<TPrincipal> => {
  const key = await options.keys.findActiveKey(options.keyHash);
  if (!key) throw new ServiceError('unauthenticated', 'API key is invalid or revoked');
  const now = options.now ?? new Date();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    options.keys.markUsed(key.keyId).catch((err: unknown) => options.onBackgroundError?.(err));
  }
  return {
    accountId: key.accountId,
    keyId: key.keyId,
    email: key.email,
    plan: key.plan,
    apiAccess: hasApiAccess(key.plan),
  };
};

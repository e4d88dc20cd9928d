import { ServiceError, type TPrincipal } from '@esign/contracts';
import { LAST_USED_RESOLUTION_MS, type KeyRepository } from '../db/key-repository';
import { hasApiAccess } from './has-api-access';

/** Resolve a key hash to its principal; `unauthenticated` when the key is unknown or revoked. */
export const verifyKey = async (options: {
  keys: KeyRepository;
  keyHash: string;
  now?: Date;
}): Promise<TPrincipal> => {
  const key = await options.keys.findActiveKey(options.keyHash);
  if (!key) throw new ServiceError('unauthenticated', 'API key is invalid or revoked');
  const now = options.now ?? new Date();
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await options.keys.markUsed(key.keyId);
  }
  return {
    accountId: key.accountId,
    keyId: key.keyId,
    email: key.email,
    plan: key.plan,
    apiAccess: hasApiAccess(key.plan),
  };
};

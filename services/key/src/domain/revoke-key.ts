import { ServiceError, type KeyRevoke, type KeyRevoked } from '@esign/contracts';
import type { z } from 'zod';
import type { KeyRepository, KeyTarget } from '../db/key-repository';

export type TRevokeKeyReply = z.input<(typeof KeyRevoke)['reply']>;
export type TKeyRevokedEvent = z.input<(typeof KeyRevoked)['payload']>;

/**
 * Revoke a key (idempotent: a second call answers `alreadyRevoked: true` with the first time) and
 * announce it so that every gateway drops the key from its cache. The event goes out on every call,
 * not only the first: it is fire-and-forget, so a repeat gives a gateway that missed it another chance.
 */
export const revokeKey = async (options: {
  keys: KeyRepository;
  publishRevoked: (event: TKeyRevokedEvent) => Promise<void>;
  target: KeyTarget;
  /** Only this account's key: another account's is `not_found`. */
  accountId?: string;
}): Promise<TRevokeKeyReply> => {
  const revoked = await options.keys.revokeKey(options.target, options.accountId);
  if (!revoked) throw new ServiceError('not_found', 'API key not found');
  const revokedAt = revoked.revokedAt.toISOString();
  await options.publishRevoked({
    keyId: revoked.keyId,
    keyHash: revoked.keyHash,
    accountId: revoked.accountId,
    revokedAt,
  });
  return {
    keyId: revoked.keyId,
    accountId: revoked.accountId,
    revokedAt,
    alreadyRevoked: revoked.alreadyRevoked,
  };
};

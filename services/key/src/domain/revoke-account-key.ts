import type { KeyRepository } from '../db/key-repository';
import { revokeKey, type TKeyRevokedEvent, type TRevokeKeyReply } from './revoke-key';

/**
 * Revoke one of the account's own keys (the dashboard's "revoke"), announced like the CLI's revocation.
 * Another account's key is `not_found`, exactly like a key that does not exist.
 */
export const revokeAccountKey = (options: {
  keys: KeyRepository;
  publishRevoked: (event: TKeyRevokedEvent) => Promise<void>;
  accountId: string;
  keyId: string;
}): Promise<TRevokeKeyReply> =>
  revokeKey({
    keys: options.keys,
    publishRevoked: options.publishRevoked,
    target: { keyId: options.keyId },
    accountId: options.accountId,
  });

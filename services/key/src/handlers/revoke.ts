import { endpoint, type Endpoint } from '@esign/bus';
import { KeyRevoke } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';
import { revokeKey, type TKeyRevokedEvent } from '../domain/revoke-key';

/** `key.revoke`: by key id or key hash; publishes `events.key.revoked`. */
export const revokeHandler = (deps: {
  keys: KeyRepository;
  publishRevoked: (event: TKeyRevokedEvent) => Promise<void>;
}): Endpoint =>
  endpoint(KeyRevoke, (request) =>
    revokeKey({ keys: deps.keys, publishRevoked: deps.publishRevoked, target: request }),
  );

import { endpoint, type Endpoint } from '@esign/bus';
import { AccountKeyRevoke } from '@esign/contracts';
import { revokeAccountKey } from '../domain/revoke-account-key';
import type { KeyServiceDeps } from './deps';

/** `key.revoke-account-key`: revoke one of the account’s keys; publishes `events.key.revoked`. */
export const revokeAccountKeyHandler = (deps: Pick<KeyServiceDeps, 'keys' | 'publishRevoked'>): Endpoint =>
  endpoint(AccountKeyRevoke, (request) => revokeAccountKey({ ...deps, ...request }));

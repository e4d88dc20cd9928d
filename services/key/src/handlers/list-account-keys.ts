import { endpoint, type Endpoint } from '@esign/bus';
import { AccountKeysList } from '@esign/contracts';
import { listAccountKeys } from '../domain/list-account-keys';
import type { KeyServiceDeps } from './deps';

/** `key.list-account-keys`: the account’s keys, never the keys themselves. */
export const listAccountKeysHandler = (deps: Pick<KeyServiceDeps, 'keys'>): Endpoint =>
  endpoint(AccountKeysList, (request) => listAccountKeys({ ...deps, ...request }));

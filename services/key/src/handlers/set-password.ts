import { endpoint, type Endpoint } from '@esign/bus';
import { AccountPasswordSet } from '@esign/contracts';
import { setPassword } from '../domain/set-password';
import type { KeyServiceDeps } from './deps';

/** `key.set-password` (operator): set a password, ending the account’s sessions. */
export const setPasswordHandler = (deps: Pick<KeyServiceDeps, 'accounts' | 'passwords' | 'now'>): Endpoint =>
  endpoint(AccountPasswordSet, (request) => setPassword({ ...deps, ...request }));

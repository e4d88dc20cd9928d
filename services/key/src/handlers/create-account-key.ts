import { endpoint, type Endpoint } from '@esign/bus';
import { AccountKeyCreate } from '@esign/contracts';
import { createAccountKey } from '../domain/create-account-key';
import type { KeyServiceDeps } from './deps';

/** `key.create-account-key`: a new key for the account; the reply carries it once. */
export const createAccountKeyHandler = (deps: Pick<KeyServiceDeps, 'keys'>): Endpoint =>
  endpoint(AccountKeyCreate, (request) => createAccountKey({ ...deps, ...request }));

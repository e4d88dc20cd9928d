import { endpoint, type Endpoint } from '@esign/bus';
import { KeyCreate } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';
import { createKey } from '../domain/create-key';

/** `key.create`: a new key (and account when the email is new); the reply carries the key once. */
export const createHandler = (deps: { keys: KeyRepository }): Endpoint =>
  endpoint(KeyCreate, (request) =>
    createKey({ keys: deps.keys, email: request.email, plan: request.plan, label: request.label }),
  );

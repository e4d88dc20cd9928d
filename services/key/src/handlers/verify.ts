import { endpoint, type Endpoint } from '@esign/bus';
import { KeyVerify } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';
import { verifyKey } from '../domain/verify-key';

/** `key.verify`: key hash -> principal. */
export const verifyHandler = (deps: { keys: KeyRepository }): Endpoint =>
  endpoint(KeyVerify, (request) => verifyKey({ keys: deps.keys, keyHash: request.keyHash }));

import { endpoint, type Endpoint } from '@esign/bus';
import { KeyVerify } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';
import { verifyKey } from '../domain/verify-key';

/** `key.verify`: key hash -> principal; "last used" is written in the background. */
export const verifyHandler = (deps: { keys: KeyRepository }): Endpoint =>
  endpoint(KeyVerify, (request, ctx) =>
    verifyKey({
      keys: deps.keys,
      keyHash: request.keyHash,
      onBackgroundError: (err) => ctx.logger.warn('last used not recorded', { err }),
    }),
  );

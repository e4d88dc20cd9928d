import { endpoint, type Endpoint } from '@esign/bus';
import { KeyCreate } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';
import { createKey } from '../domain/create-key';
import type { KeyServiceDeps } from './deps';

/** `key.create`: a new key (and account when the email is new); the reply carries the key once. */
export const createHandler = (
  deps: { keys: KeyRepository } & Pick<KeyServiceDeps, 'publishPlanChanged'>,
): Endpoint =>
  endpoint(KeyCreate, async (request) => {
    const created = await createKey({
      keys: deps.keys,
      email: request.email,
      plan: request.plan,
      label: request.label,
    });
    // `--plan` on an existing account changes its plan: cached keys must follow.
    if (request.plan && !created.accountCreated)
      await deps.publishPlanChanged(created.accountId, created.plan);
    return created;
  });

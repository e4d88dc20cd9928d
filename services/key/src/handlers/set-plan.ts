import { endpoint, type Endpoint } from '@esign/bus';
import { AccountPlanSet } from '@esign/contracts';
import { setPlan } from '../domain/set-plan';
import type { KeyServiceDeps } from './deps';

/** `key.set-plan` (operator): change an account’s plan. */
export const setPlanHandler = (
  deps: Pick<KeyServiceDeps, 'accounts' | 'now' | 'publishPlanChanged'>,
): Endpoint =>
  endpoint(AccountPlanSet, async (request) => {
    const changed = await setPlan({ accounts: deps.accounts, now: deps.now, ...request });
    await deps.publishPlanChanged(changed.accountId, changed.plan);
    return changed;
  });

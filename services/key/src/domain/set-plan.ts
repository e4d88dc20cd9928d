import { ServiceError, type TPlan } from '@esign/contracts';
import type { AccountRepository } from '../db/account-repository';
import type { Clock } from './account-lifetimes';
import { normalizeEmail } from './normalize-email';
import { utcMonth } from './utc-month';

/** Operator: change an account's plan; this month's count is kept and measured against the new limit. */
export const setPlan = async (options: {
  accounts: AccountRepository;
  now: Clock;
  email: string;
  plan: TPlan;
}): Promise<{ accountId: string; plan: TPlan; previousPlan: TPlan }> => {
  const month = utcMonth(options.now());
  const changed = await options.accounts.setPlan(normalizeEmail(options.email), options.plan, month.firstDay);
  if (!changed) throw new ServiceError('not_found', 'account not found');
  return { accountId: changed.accountId, plan: options.plan, previousPlan: changed.previousPlan };
};

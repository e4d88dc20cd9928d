import { PLAN_LIMITS, ServiceError, type AccountUsageGet } from '@esign/contracts';
import type { z } from 'zod';
import type { AccountRepository } from '../db/account-repository';
import type { QuotaRepository } from '../db/quota-repository';
import type { Clock } from './account-lifetimes';
import { utcMonth } from './utc-month';

type TUsageReply = z.input<(typeof AccountUsageGet)['reply']>;

/** The account's plan, what it allows, and this UTC month's document count, for the dashboard. */
export const getUsage = async (options: {
  accounts: AccountRepository;
  quotas: QuotaRepository;
  now: Clock;
  accountId: string;
}): Promise<TUsageReply> => {
  const account = await options.accounts.findById(options.accountId);
  if (!account) throw new ServiceError('not_found', 'account not found');
  const limits = PLAN_LIMITS[account.plan];
  const month = utcMonth(options.now());
  const used = await options.quotas.used(account.accountId, month.firstDay);
  return {
    accountId: account.accountId,
    email: account.email,
    plan: account.plan,
    limits: { ...limits },
    month: month.label,
    documentsUsed: used,
    documentsRemaining:
      limits.documentsPerMonth === null ? null : Math.max(0, limits.documentsPerMonth - used),
    resetsAt: month.nextStart.toISOString(),
  };
};

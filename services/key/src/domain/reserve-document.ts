import { PLAN_LIMITS, ServiceError, type DocumentQuotaReserve } from '@esign/contracts';
import type { z } from 'zod';
import type { AccountRepository } from '../db/account-repository';
import type { QuotaRepository } from '../db/quota-repository';
import type { Clock } from './account-lifetimes';
import { utcMonth } from './utc-month';

type TReserveReply = z.input<(typeof DocumentQuotaReserve)['reply']>;

/**
 * Count one document against the account's plan for the current UTC month, atomically. An exhausted
 * quota is `permission_denied` (the plan does not allow it; retrying will not help before the month
 * ends), with a message that names the plan, the limit and when the count starts again.
 */
export const reserveDocument = async (options: {
  accounts: AccountRepository;
  quotas: QuotaRepository;
  now: Clock;
  accountId: string;
}): Promise<TReserveReply> => {
  const account = await options.accounts.findById(options.accountId);
  if (!account) throw new ServiceError('not_found', 'account not found');
  const limit = PLAN_LIMITS[account.plan].documentsPerMonth;
  const month = utcMonth(options.now());
  const reserved = await options.quotas.reserve({
    accountId: account.accountId,
    month: month.firstDay,
    limit,
  });
  if (!reserved) {
    throw new ServiceError(
      'permission_denied',
      `the ${account.plan} plan allows ${limit ?? 'unlimited'} documents a month and ${month.label}'s are used; ` +
        `the count starts again at ${month.nextStart.toISOString()}`,
    );
  }
  return { reservationId: reserved.reservationId, month: month.label, used: reserved.used, limit };
};

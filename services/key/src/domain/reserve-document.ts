import { PLAN_LIMITS, ServiceError, type DocumentQuotaReserve } from '@esign/contracts';
import type { z } from 'zod';
import type { QuotaRepository } from '../db/quota-repository';
import type { Clock } from './account-lifetimes';
import { utcMonth } from './utc-month';

type TReserveReply = z.input<(typeof DocumentQuotaReserve)['reply']>;

/**
 * Count one document against the account's plan for the current UTC month, atomically, in one
 * statement (the plan is read in it). An exhausted quota is `permission_denied` (the plan does not
 * allow it; retrying will not help before the month ends), with a message that names the plan, the
 * limit and when the count starts again.
 */
export const reserveDocument = async (options: {
  quotas: QuotaRepository;
  now: Clock;
  accountId: string;
}): Promise<TReserveReply> => {
  const month = utcMonth(options.now());
  const reserved = await options.quotas.reserve({
    accountId: options.accountId,
    month: month.firstDay,
  });
  if (!reserved) throw new ServiceError('not_found', 'account not found');
  const limit = PLAN_LIMITS[reserved.plan].documentsPerMonth;
  if (reserved.reservationId === undefined) {
    throw new ServiceError(
      'permission_denied',
      `the ${reserved.plan} plan allows ${limit ?? 'unlimited'} documents a month and ${month.label}'s are used; ` +
        `the count starts again at ${month.nextStart.toISOString()}`,
    );
  }
  return { reservationId: reserved.reservationId, month: month.label, used: reserved.used ?? null, limit };
};

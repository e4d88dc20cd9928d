import { ServiceError, type DocumentQuotaRelease } from '@esign/contracts';
import type { z } from 'zod';
import type { QuotaRepository } from '../db/quota-repository';
import type { Clock } from './account-lifetimes';
import { monthLabel } from './utc-month';

type TReleaseReply = z.input<(typeof DocumentQuotaRelease)['reply']>;

/** Give back a reservation whose document was not created; once (idempotent), in the month it was made. */
export const releaseDocument = async (options: {
  quotas: QuotaRepository;
  now: Clock;
  accountId: string;
  reservationId: string;
}): Promise<TReleaseReply> => {
  const released = await options.quotas.release({
    accountId: options.accountId,
    reservationId: options.reservationId,
    now: options.now(),
  });
  if (!released) throw new ServiceError('not_found', 'reservation not found');
  return {
    reservationId: options.reservationId,
    month: monthLabel(released.month),
    alreadyReleased: released.alreadyReleased,
  };
};

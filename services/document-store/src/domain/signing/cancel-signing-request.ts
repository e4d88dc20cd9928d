import { SigningCanceled, type SigningCancel } from '@esign/contracts';
import type { z } from 'zod';
import { eventBase, signingOutboxEntry } from '../../db/signing-repository';
import { changePendingRequest } from './change-pending-request';
import type { SigningDeps } from './signing-deps';

/** `signing.cancel`: the sender ends a pending request; its links die; `events.signing.canceled`. */
export const cancelSigningRequest = (
  deps: Pick<SigningDeps, 'pool' | 'now'>,
  request: z.output<(typeof SigningCancel)['request']>,
): Promise<{ sendId: string; status: 'canceled'; canceledAt: string }> =>
  changePendingRequest(deps, {
    find: { sendId: request.sendId, accountId: request.accountId },
    decide: (row, now) => ({
      update: { status: 'canceled', canceled_at: now, next_reminder_at: null },
      event: { event: 'signing.canceled', details: {} },
      publish: signingOutboxEntry(SigningCanceled.subject, (eventId) => ({
        ...eventBase(row, eventId),
        canceledAt: now.toISOString(),
      })),
      reply: { sendId: row.id, status: 'canceled' as const, canceledAt: now.toISOString() },
    }),
  });

import { SigningDeclined, type SigningDecline } from '@esign/contracts';
import type { z } from 'zod';
import { eventBase, signingOutboxEntry } from '../../db/signing-repository';
import { changePendingRequest } from './change-pending-request';
import type { SigningDeps } from './signing-deps';

/** `signing.decline`: declined with the recipient's reason, IP and user agent; `events.signing.declined`. */
export const declineSigningRequest = (
  deps: SigningDeps,
  request: z.output<(typeof SigningDecline)['request']>,
): Promise<{ sendId: string; status: 'declined'; declinedAt: string }> =>
  changePendingRequest(deps, {
    find: { tokenHash: request.tokenHash },
    decide: (row, now) => ({
      update: {
        status: 'declined',
        declined_at: now,
        decline_reason: request.reason,
        next_reminder_at: null,
      },
      event: {
        event: 'signing.declined',
        details: { reason: request.reason, ipAddress: request.ipAddress, userAgent: request.userAgent },
        byRecipient: true,
      },
      publish: signingOutboxEntry(SigningDeclined.subject, (eventId) => ({
        ...eventBase(row, eventId),
        declinedAt: now.toISOString(),
        reason: request.reason,
      })),
      reply: { sendId: row.id, status: 'declined' as const, declinedAt: now.toISOString() },
    }),
  });

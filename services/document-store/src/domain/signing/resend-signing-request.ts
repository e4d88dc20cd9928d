import { SigningRequested, type SigningResend } from '@esign/contracts';
import type { z } from 'zod';
import { eventBase, signingOutboxEntry } from '../../db/signing-repository';
import { changePendingRequest } from './change-pending-request';
import type { SigningDeps } from './signing-deps';

/**
 * `signing.resend`: `events.signing.requested` again with `resend: true` (the mailer's new link replaces
 * the earlier ones). The expiry and the reminder schedule stay as they were.
 */
export const resendSigningRequest = (
  deps: Pick<SigningDeps, 'pool' | 'now'>,
  request: z.output<(typeof SigningResend)['request']>,
): Promise<{ sendId: string; status: 'pending'; expiresAt: string }> =>
  changePendingRequest(deps, {
    find: { sendId: request.sendId, accountId: request.accountId },
    decide: (row, now) => ({
      event: { event: 'signing.resent', details: {} },
      publish: signingOutboxEntry(SigningRequested.subject, (eventId) => ({
        ...eventBase(row, eventId),
        subject: row.subject,
        message: row.message,
        expiresAt: row.expiresAt.toISOString(),
        requestedAt: now.toISOString(),
        resend: true,
      })),
      reply: { sendId: row.id, status: 'pending' as const, expiresAt: row.expiresAt.toISOString() },
    }),
  });

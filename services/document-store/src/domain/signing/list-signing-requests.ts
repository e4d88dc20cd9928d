import type { TSentRequest } from '@esign/contracts';
import { listRequests, type TSigningRequestRow } from '../../db/signing-repository';
import { effectiveStatus, type SigningDeps } from './signing-deps';

const endOf = (row: TSigningRequestRow, status: TSentRequest['status']): Date | null => {
  switch (status) {
    case 'pending':
      return null;
    case 'signed':
      return row.signedAt ?? row.sentAt;
    case 'declined':
      return row.declinedAt ?? row.sentAt;
    case 'canceled':
      return row.canceledAt ?? row.sentAt;
    case 'expired':
      // Not yet swept: it expired at its expiry.
      return row.expiredAt ?? row.expiresAt;
  }
};

/** `signing.list`: an account's requests, newest first, with their status as `signing.status` says it. */
export const listSigningRequests = async (
  deps: SigningDeps,
  request: { accountId: string; page: number; limit: number },
): Promise<{ requests: TSentRequest[]; total: number; page: number; pages: number }> => {
  const { rows, total } = await listRequests(deps.pool, request.accountId, {
    limit: request.limit,
    offset: (request.page - 1) * request.limit,
  });
  const now = deps.now();
  return {
    requests: rows.map((row) => {
      const status = effectiveStatus(row, now);
      return {
        sendId: row.id,
        auditId: row.auditId,
        fileName: row.fileName,
        subject: row.subject,
        recipientName: row.recipientName,
        recipientEmail: row.recipientEmail,
        status,
        sentAt: row.sentAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
        viewedAt: row.viewedAt?.toISOString() ?? null,
        endedAt: endOf(row, status)?.toISOString() ?? null,
        declineReason: status === 'declined' ? (row.declineReason ?? '') : null,
      };
    }),
    total,
    page: request.page,
    pages: Math.ceil(total / request.limit),
  };
};

import type { TSigningStatusReply } from '@esign/contracts';
import { findRequestById } from '../../db/signing-repository';
import { effectiveStatus, notFound, type SigningDeps } from './signing-deps';

const iso = (d: Date | null, fallback: Date): string => (d ?? fallback).toISOString();

/** `signing.status`: exactly the spec's fields for the request's state; by audit ID or send ID. */
export const getSigningStatus = async (
  deps: SigningDeps,
  request: { accountId: string; id: string },
): Promise<TSigningStatusReply> => {
  const row = await findRequestById(deps.pool, request.accountId, request.id);
  if (!row) throw notFound();
  const { auditId } = row;
  const status = effectiveStatus(row, deps.now());
  switch (status) {
    case 'pending':
      return {
        auditId,
        status,
        signerName: row.recipientName,
        signerEmail: row.recipientEmail,
        viewedAt: row.viewedAt?.toISOString() ?? null,
      };
    case 'signed':
      return {
        auditId,
        status,
        signerName: row.recipientName,
        signerEmail: row.recipientEmail,
        signedAt: iso(row.signedAt, row.sentAt),
        fileHash: row.fileHash ?? '',
      };
    case 'declined':
      return {
        auditId,
        status,
        declinedAt: iso(row.declinedAt, row.sentAt),
        declineReason: row.declineReason ?? '',
      };
    case 'canceled':
      return { auditId, status, canceledAt: iso(row.canceledAt, row.sentAt) };
    case 'expired':
      // Not yet swept: it expired at its expiry.
      return { auditId, status, expiredAt: iso(row.expiredAt, row.expiresAt) };
  }
};

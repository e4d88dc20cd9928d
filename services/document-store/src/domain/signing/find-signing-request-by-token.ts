import type { SigningFindByToken } from '@esign/contracts';
import type { z } from 'zod';
import { findRequestByToken } from '../../db/signing-repository';
import { effectiveStatus, notFound, type SigningDeps } from './signing-deps';

/**
 * `signing.find-by-token`: what the signing page shows. Unknown and revoked links are `not_found`; a
 * link of a finished request is found with its final status, so that the page can say why it is gone.
 */
export const findSigningRequestByToken = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningFindByToken)['request']>,
): Promise<z.input<(typeof SigningFindByToken)['reply']>> => {
  const row = await findRequestByToken(deps.pool, request.tokenHash, { lock: false });
  if (!row) throw notFound('signing link');
  return {
    sendId: row.id,
    auditId: row.auditId,
    accountId: row.accountId,
    status: effectiveStatus(row, deps.now()),
    recipientName: row.recipientName,
    recipientEmail: row.recipientEmail,
    senderEmail: row.senderEmail,
    message: row.message,
    fileName: row.fileName,
    positions: row.positions,
    objectKey: row.objectKey,
    pageCount: row.pageCount,
    expiresAt: row.expiresAt.toISOString(),
    viewedAt: row.viewedAt?.toISOString() ?? null,
  };
};

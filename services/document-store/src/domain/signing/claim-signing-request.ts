import { ServiceError, type SigningClaim, type SigningRelease } from '@esign/contracts';
import type { z } from 'zod';
import { findRequestByToken, inTransaction, updateRequest } from '../../db/signing-repository';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/**
 * `signing.claim`: hold the request for one sign workflow (`claimMs`). Refused (`conflict`) while
 * another claim holds, so that a double submit runs the signer once.
 */
export const claimSigningRequest = async (
  deps: SigningDeps & { claimMs: number },
  request: z.output<(typeof SigningClaim)['request']>,
): Promise<{ sendId: string; auditId: string; claimedUntil: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await findRequestByToken(client, request.tokenHash, { lock: true });
    if (!row) throw notFound('signing link');
    requirePending(row, now);
    if (row.claimedUntil && row.claimedUntil.getTime() > now.getTime()) {
      throw new ServiceError('conflict', 'a signature for this request is already in progress', 'status');
    }
    const claimedUntil = new Date(now.getTime() + deps.claimMs);
    await updateRequest(client, row.id, { claimed_until: claimedUntil });
    return { sendId: row.id, auditId: row.auditId, claimedUntil: claimedUntil.toISOString() };
  });
};

/** `signing.release`: end a claim (the sign workflow failed); harmless when none holds. */
export const releaseSigningRequest = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningRelease)['request']>,
): Promise<{ sendId: string }> =>
  inTransaction(deps.pool, async (client) => {
    const row = await findRequestByToken(client, request.tokenHash, { lock: true });
    if (!row) throw notFound('signing link');
    await updateRequest(client, row.id, { claimed_until: null });
    return { sendId: row.id };
  });

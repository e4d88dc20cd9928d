import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { DocumentFindByIdempotencyKey, ServiceError, ZIdempotencyKey } from '@esign/contracts';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { ReceivedFile } from '../http/receive-upload';

/** The optional `Idempotency-Key` header, checked; undefined when absent. */
export const readIdempotencyKey = (req: Request): string | undefined => {
  const value = req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  const parsed = ZIdempotencyKey.safeParse(value);
  if (!parsed.success) {
    throw new ServiceError(
      'invalid_argument',
      'Idempotency-Key must be 1-255 visible ASCII characters (a UUID, for example)',
      'Idempotency-Key',
    );
  }
  return parsed.data;
};

/**
 * What makes two sign requests the same request: the file's bytes and every field as sent. A retry
 * sends both again unchanged; a different request under the same key is refused.
 */
export const fingerprintOf = (file: ReceivedFile, fields: Record<string, string>): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        file.sha256,
        file.fileName,
        Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1)),
      ]),
    )
    .digest('hex');

/** The document an earlier request with this key produced; `conflict` if that request was another one. */
export const findEarlier = async (
  deps: Pick<GatewayDeps, 'bus'>,
  accountId: string,
  idempotency: { key: string; requestHash: string },
): Promise<z.infer<typeof DocumentFindByIdempotencyKey.reply> | undefined> => {
  const earlier = await deps.bus
    .request(DocumentFindByIdempotencyKey, { accountId, key: idempotency.key })
    .catch((err: unknown) => {
      if (err instanceof ServiceError && err.code === 'not_found') return undefined;
      throw err;
    });
  if (earlier && earlier.requestHash !== idempotency.requestHash) {
    throw new ServiceError(
      'conflict',
      `Idempotency-Key was already used for a different request (document ${earlier.auditId})`,
      'Idempotency-Key',
    );
  }
  return earlier;
};

/**
 * After recording failed: the document of the request that won a race for the same key, when that
 * is why it failed (`conflict` on `Idempotency-Key`); otherwise the failure stands.
 */
export const winnerOfRace = async (
  deps: Pick<GatewayDeps, 'bus'>,
  accountId: string,
  idempotency: { key: string; requestHash: string } | undefined,
  err: unknown,
): Promise<z.infer<typeof DocumentFindByIdempotencyKey.reply>> => {
  const lostRace =
    idempotency !== undefined &&
    err instanceof ServiceError &&
    err.code === 'conflict' &&
    err.field === 'Idempotency-Key';
  const winner = lostRace ? await findEarlier(deps, accountId, idempotency) : undefined;
  if (!winner) throw err;
  return winner;
};

import { createHash } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import type { SigningPorts, TEarlierDocument } from './ports';

/** An `Idempotency-Key` and the fingerprint of the request it came with. */
export interface Idempotency {
  readonly key: string;
  readonly requestHash: string;
}

/**
 * What makes two sign requests the same request: the file's bytes and every field as sent. A retry
 * sends both again unchanged; a different request under the same key is refused.
 */
export const fingerprintOf = (
  file: { sha256?: string; fileName: string },
  fields: Readonly<Record<string, string>>,
): string =>
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
  ports: Pick<SigningPorts, 'findByIdempotencyKey'>,
  accountId: string,
  idempotency: Idempotency,
): Promise<TEarlierDocument | undefined> => {
  const earlier = await ports.findByIdempotencyKey(accountId, idempotency.key);
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
  ports: Pick<SigningPorts, 'findByIdempotencyKey'>,
  accountId: string,
  idempotency: Idempotency | undefined,
  err: unknown,
): Promise<TEarlierDocument> => {
  const lostRace =
    idempotency !== undefined &&
    err instanceof ServiceError &&
    err.code === 'conflict' &&
    err.field === 'Idempotency-Key';
  const winner = lostRace ? await findEarlier(ports, accountId, idempotency) : undefined;
  if (!winner) throw err;
  return winner;
};

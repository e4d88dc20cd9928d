import { ServiceError, type EnvelopeList, type TEnvelope } from '@esign/contracts';
import { z } from 'zod';
import { listEnvelopes as listEnvelopeRows } from '../../db/envelope-repository';
import { toEnvelopeView, type EnvelopeDeps } from './envelope-deps';

/** A keyset cursor: base64url of JSON `{ t: createdAt (ISO), i: envelope id }` of a page's last envelope. */
const ZCursor = z.object({ t: z.iso.datetime(), i: z.string().regex(/^env_[A-Za-z0-9]{16,40}$/) });

const encodeCursor = (e: TEnvelope): string =>
  Buffer.from(JSON.stringify({ t: e.createdAt, i: e.envelopeId }), 'utf8').toString('base64url');

const decodeCursor = (cursor: string): { createdAt: Date; id: string } => {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    const parsed = ZCursor.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return { createdAt: new Date(parsed.t), id: parsed.i };
  } catch {
    throw new ServiceError('invalid_argument', 'cursor is not a nextCursor of this list', 'cursor');
  }
};

/** `envelope.list`: the account's envelopes, newest first, keyset paged, optionally of one status (as `envelope.get` reads it). */
export const listEnvelopes = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeList)['request']>,
): Promise<z.infer<(typeof EnvelopeList)['reply']>> => {
  const now = deps.now();
  const rows = await listEnvelopeRows(deps.pool, {
    accountId: request.accountId,
    status: request.status,
    limit: request.limit + 1,
    after: request.cursor ? decodeCursor(request.cursor) : undefined,
    now,
  });
  const envelopes = rows.slice(0, request.limit).map((a) => toEnvelopeView(a, now));
  const last = envelopes.at(-1);
  return { envelopes, nextCursor: rows.length > request.limit && last ? encodeCursor(last) : null };
};

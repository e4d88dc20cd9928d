import { ServiceError, type TListDocumentsRequest } from '@esign/contracts';
import { z } from 'zod';
import type { TListAfter } from '../db/list-documents-query';

/**
 * A keyset cursor: base64url of JSON `{ s: sortBy, d: sortDir, k: sort key, i: id }` of the last
 * document of a page. Opaque to clients; the sort and direction are in it so that a cursor cannot be
 * applied to another order (which would skip or repeat documents silently).
 */
const ZCursor = z.object({
  s: z.enum(['signed_at', 'file_name', 'created_at']),
  d: z.enum(['asc', 'desc']),
  k: z.string().max(1000),
  i: z.uuid(),
});

/** Timestamps as the list query writes them: UTC, microseconds. */
const TIMESTAMP_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export const encodeCursor = (
  request: Pick<TListDocumentsRequest, 'sortBy' | 'sortDir'>,
  after: TListAfter,
): string =>
  Buffer.from(
    JSON.stringify({ s: request.sortBy, d: request.sortDir, k: after.sortKey, i: after.id }),
    'utf8',
  ).toString('base64url');

const invalid = () =>
  new ServiceError('invalid_argument', 'cursor is not a nextCursor of this list and sort order', 'cursor');

/** The position a cursor encodes; `invalid_argument` (field `cursor`) when it is not one for this sort. */
export const decodeCursor = (
  cursor: string,
  request: Pick<TListDocumentsRequest, 'sortBy' | 'sortDir'>,
): TListAfter => {
  let parsed: z.infer<typeof ZCursor>;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
    parsed = ZCursor.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  if (parsed.s !== request.sortBy || parsed.d !== request.sortDir) throw invalid();
  if (parsed.s !== 'file_name' && !(TIMESTAMP_KEY.test(parsed.k) && !Number.isNaN(Date.parse(parsed.k)))) {
    throw invalid();
  }
  return { sortKey: parsed.k, id: parsed.i };
};

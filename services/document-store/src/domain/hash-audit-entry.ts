import { createHash } from 'node:crypto';
import type { TAuditDetails } from '../db/schema';

/** `prevHash` of the first entry of every audit log. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields an audit log entry's hash covers. */
export interface TAuditHashInput {
  readonly auditId: string;
  readonly sequence: number;
  readonly event: string;
  /** ISO 8601 UTC with milliseconds and `Z`, exactly as the API returns it: `2025-01-02T03:04:05.678Z`. */
  readonly timestamp: string;
  readonly details: TAuditDetails;
  readonly prevHash: string;
}

type TJson = string | number | boolean | null | TJson[] | { [key: string]: TJson };

/**
 * Canonical JSON: no whitespace; object keys sorted by UTF-16 code units (JavaScript's default
 * `Array.prototype.sort`) at every depth; strings, numbers, booleans and null written as
 * `JSON.stringify` writes them.
 */
export const canonicalJson = (value: TJson): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] ?? null)}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new Error('non-finite number in audit data');
  return JSON.stringify(value);
};

/**
 * The hash that chains audit log entry `sequence` to the one before it. To re-verify a log:
 *
 *   hash_i = lowercase hex SHA-256 of the UTF-8 bytes of
 *            canonicalJson({ auditId, sequence: i, event, timestamp, details, prevHash })
 *   prevHash_0 = "0" x 64, prevHash_i = hash_(i-1), sequence starting at 0 with no gaps
 *
 * with `auditId` the document's audit ID and the other fields exactly as returned in `auditLog`.
 * With the keys in canonical order, entry 0 of a log hashes the bytes of, for example:
 *
 *   {"auditId":"ESG-AB12-CD34-EF56","details":{"ip":"203.0.113.7"},"event":"document.uploaded",
 *    "prevHash":"0000…0000","sequence":0,"timestamp":"2025-01-02T03:04:05.678Z"}
 *
 * (one line, no spaces). Changing, removing, inserting or reordering any entry breaks every hash after it.
 */
export const hashAuditEntry = (entry: TAuditHashInput): string =>
  createHash('sha256')
    .update(
      canonicalJson({
        auditId: entry.auditId,
        sequence: entry.sequence,
        event: entry.event,
        timestamp: entry.timestamp,
        details: entry.details,
        prevHash: entry.prevHash,
      }),
      'utf8',
    )
    .digest('hex');

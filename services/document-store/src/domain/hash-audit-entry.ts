import { hash } from 'node:crypto';
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
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new Error('non-finite number in audit data');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  let out = '{';
  for (const [i, key] of keys.entries()) {
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(value[key] ?? null)}`;
  }
  return `${out}}`;
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
  hash('sha256', auditEntryLine(entry), 'hex');

/**
 * `canonicalJson` of the entry's six fields, with the top-level keys written out in their canonical
 * (sorted) order: the same bytes, without sorting and walking an object built only to be hashed.
 */
export const auditEntryLine = (entry: TAuditHashInput): string =>
  `{"auditId":${JSON.stringify(entry.auditId)},"details":${canonicalJson(entry.details)},` +
  `"event":${JSON.stringify(entry.event)},"prevHash":${JSON.stringify(entry.prevHash)},` +
  `"sequence":${canonicalJson(entry.sequence)},"timestamp":${JSON.stringify(entry.timestamp)}}`;

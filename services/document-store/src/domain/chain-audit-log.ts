import type { TStoredAuditEvent } from '@esign/contracts';
import type { TAuditDetails } from '../db/schema';
import { GENESIS_HASH, hashAuditEntry } from './hash-audit-entry';

/** An audit event before it is chained: its timestamp already normalized to ISO UTC milliseconds. */
export interface TAuditEntryDraft {
  readonly event: string;
  readonly timestamp: string;
  readonly details: TAuditDetails;
}

/** Number the entries from 0 and chain each to the one before it. */
export const chainAuditLog = (auditId: string, drafts: readonly TAuditEntryDraft[]): TStoredAuditEvent[] => {
  const chained: TStoredAuditEvent[] = [];
  let prevHash = GENESIS_HASH;
  for (const [sequence, draft] of drafts.entries()) {
    const hash = hashAuditEntry({ auditId, sequence, ...draft, prevHash });
    chained.push({ ...draft, sequence, prevHash, hash });
    prevHash = hash;
  }
  return chained;
};

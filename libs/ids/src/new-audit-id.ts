import { AUDIT_ID_PREFIX } from '@esign/contracts';
import { randomString } from './random-string';

/** Uppercase letters and digits without 0/O and 1/I, so that a person can read one aloud or copy it from paper. */
const AUDIT_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A new random audit ID, `ESG-XXXX-XXXX-XXXX` (60 bits of entropy; matches `ZAuditId`). */
export const newAuditId = (): string => {
  // One call into the generator for all twelve characters: each call costs as much as the bytes.
  const chars = randomString({ alphabet: AUDIT_ALPHABET, length: 12 });
  return `${AUDIT_ID_PREFIX}-${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
};

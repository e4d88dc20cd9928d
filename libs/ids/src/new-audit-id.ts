import { AUDIT_ID_PREFIX } from '@esign/contracts';
import { randomString } from './random-string';

/** Uppercase letters and digits without 0/O and 1/I, so that a person can read one aloud or copy it from paper. */
const AUDIT_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A new random audit ID, `ESG-XXXX-XXXX-XXXX` (60 bits of entropy; matches `ZAuditId`). */
export const newAuditId = (): string => {
  const group = () => randomString({ alphabet: AUDIT_ALPHABET, length: 4 });
  return `${AUDIT_ID_PREFIX}-${group()}-${group()}-${group()}`;
};

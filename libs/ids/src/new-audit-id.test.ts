import { describe, expect, it } from 'vitest';
import { ZAuditId } from '@esign/contracts';
import { newAuditId } from './new-audit-id';

describe('newAuditId', () => {
  it('makes ESG-XXXX-XXXX-XXXX IDs that the contract accepts, without 0, O, 1 or I', () => {
    for (let i = 0; i < 500; i++) {
      const sut = newAuditId();
      expect(sut).toMatch(/^ESG-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
      expect(ZAuditId.safeParse(sut).success).toBe(true);
    }
  });

  it('does not repeat', () => {
    const ids = Array.from({ length: 2000 }, () => newAuditId());
    expect(new Set(ids).size).toBe(ids.length);
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditEntryLine, canonicalJson, GENESIS_HASH, hashAuditEntry } from './hash-audit-entry';
import { chainAuditLog } from './chain-audit-log';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: 'x"y' } })).toBe(
      '{"a":{"c":"x\\"y","d":[true,null]},"b":1}',
    );
  });

  it('refuses numbers JSON cannot carry', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow('non-finite');
  });
});

describe('hashAuditEntry', () => {
  it('hashes exactly the documented canonical line', () => {
    const entry = {
      auditId: 'ESG-AB12-CD34-EF56',
      sequence: 0,
      event: 'document.uploaded',
      timestamp: '2025-01-02T03:04:05.678Z',
      details: { ip: '203.0.113.7' },
      prevHash: GENESIS_HASH,
    };
    const line =
      '{"auditId":"ESG-AB12-CD34-EF56","details":{"ip":"203.0.113.7"},"event":"document.uploaded",' +
      `"prevHash":"${'0'.repeat(64)}","sequence":0,"timestamp":"2025-01-02T03:04:05.678Z"}`;
    expect(hashAuditEntry(entry)).toBe(createHash('sha256').update(line).digest('hex'));
  });
});

describe('auditEntryLine', () => {
  it('is canonicalJson of the six hashed fields', () => {
    const entry = {
      auditId: 'ESG-AB12-CD34-EF56',
      sequence: 3,
      event: 'signature.applied "quoted"',
      timestamp: '2025-01-02T03:04:05.678Z',
      details: { z: 'last', A: 1.5, m: null, b: true, é: 'ü\n' },
      prevHash: 'f'.repeat(64),
    };
    expect(auditEntryLine(entry)).toBe(canonicalJson({ ...entry }));
  });
});

describe('chainAuditLog', () => {
  it('numbers entries from 0 and links each to the previous hash', () => {
    const sut = chainAuditLog('ESG-AB12-CD34-EF56', [
      { event: 'a', timestamp: '2025-01-02T03:04:05.678Z', details: {} },
      { event: 'b', timestamp: '2025-01-02T03:04:06.000Z', details: { n: 1 } },
    ]);
    expect(sut.map((e) => e.sequence)).toEqual([0, 1]);
    expect(sut[0]?.prevHash).toBe(GENESIS_HASH);
    expect(sut[1]?.prevHash).toBe(sut[0]?.hash);
    const tampered = chainAuditLog('ESG-AB12-CD34-EF56', [
      { event: 'a', timestamp: '2025-01-02T03:04:05.679Z', details: {} },
      { event: 'b', timestamp: '2025-01-02T03:04:06.000Z', details: { n: 1 } },
    ]);
    expect(tampered[1]?.hash).not.toBe(sut[1]?.hash);
  });
});

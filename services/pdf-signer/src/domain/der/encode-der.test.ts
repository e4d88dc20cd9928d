import { describe, expect, it } from 'vitest';
import { derElement, derOid, derSetOf, derTime, derUnsignedInteger } from './encode-der';
import { readDer, readDerChildren } from './read-der';

describe('der', () => {
  it('encodes object identifiers, including multi-byte arcs', () => {
    // sha256 and id-signedData, as every CMS implementation writes them.
    expect(derOid('2.16.840.1.101.3.4.2.1').toString('hex')).toBe('0609608648016503040201');
    expect(derOid('1.2.840.113549.1.7.2').toString('hex')).toBe('06092a864886f70d010702');
    // The first two arcs share a subidentifier, which takes two bytes past 2.47.
    expect(derOid('2.999.3').toString('hex')).toBe('0603883703');
    expect(derOid('2.40').toString('hex')).toBe('060178');
  });

  it('encodes lengths in short and long form', () => {
    expect(derElement(0x04, Buffer.alloc(3)).subarray(0, 2).toString('hex')).toBe('0403');
    expect(derElement(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex')).toBe('0481c8');
    expect(derElement(0x04, Buffer.alloc(70000)).subarray(0, 5).toString('hex')).toBe('0483011170');
  });

  it('keeps integers positive and minimal', () => {
    expect(derUnsignedInteger(Buffer.from([0x80])).toString('hex')).toBe('02020080');
    expect(derUnsignedInteger(Buffer.from([0, 0, 0x7f])).toString('hex')).toBe('02017f');
  });

  it('sorts the members of a SET OF by their encodings', () => {
    const a = derOid('1.2.3');
    const b = derOid('1.2.1');
    expect(derSetOf(a, b).equals(Buffer.concat([Buffer.from([0x31, a.length + b.length]), b, a]))).toBe(true);
  });

  it('writes UTCTime before 2050 and GeneralizedTime after', () => {
    expect(derTime(new Date('2026-11-21T16:40:05.123Z')).toString('latin1').slice(2)).toBe('261121164005Z');
    expect(derTime(new Date('2051-01-02T03:04:05Z'))[0]).toBe(0x18);
  });

  it('reads back what it writes', () => {
    const seq = derElement(0x30, derOid('1.2.3'), derUnsignedInteger(Buffer.from([5])));
    const root = readDer(seq, 0);
    expect(root).toMatchObject({ tag: 0x30, start: 0, end: seq.length });
    expect(readDerChildren(seq, root).map((c) => c.tag)).toEqual([0x06, 0x02]);
    expect(() => readDer(seq.subarray(0, 3), 0)).toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { derElement, derOid, derSequence } from './encode-der';
import { DerError, integerMagnitude, readDer, readDerChildren, readOid, readTime } from './read-der';

const oidOf = (hex: string) => {
  const der = Buffer.from(hex, 'hex');
  return readOid(der, readDer(der, 0));
};

const timeOf = (tag: 0x17 | 0x18, text: string) => {
  const der = derElement(tag, Buffer.from(text, 'latin1'));
  return readTime(der, readDer(der, 0));
};

describe('readDer', () => {
  it('reads short and long form lengths', () => {
    for (const size of [0, 127, 128, 255, 256, 70_000]) {
      const der = derElement(0x04, Buffer.alloc(size, 1));
      const node = readDer(der, 0);
      expect(node.end - node.contentStart).toBe(size);
      expect(node.end).toBe(der.length);
    }
    // 0x82 0x01 0x00: a two-byte length of 256.
    expect(readDer(Buffer.concat([Buffer.from('04820100', 'hex'), Buffer.alloc(256)]), 0)).toMatchObject({
      contentStart: 4,
      end: 260,
    });
  });

  it('refuses truncated input and lengths it does not read', () => {
    expect(() => readDer(Buffer.from([0x30]), 0)).toThrow(DerError);
    expect(() => readDer(Buffer.from('0405aabb', 'hex'), 0)).toThrow('runs past the end');
    expect(() => readDer(Buffer.from('0481', 'hex'), 0)).toThrow(DerError);
    // Indefinite length (BER) and lengths of more than four bytes.
    expect(() => readDer(Buffer.from('30800000', 'hex'), 0)).toThrow('unsupported length');
    expect(() => readDer(Buffer.from('0485010000000000', 'hex'), 0)).toThrow('unsupported length');
  });

  it('refuses a child that runs past its parent', () => {
    // SEQUENCE of 2 bytes whose OCTET STRING says 1 byte: 3 bytes, one past the SEQUENCE.
    const der = Buffer.from('30020401aa', 'hex');
    expect(() => readDerChildren(der, readDer(der, 0))).toThrow('past the end of its parent');
    // Past the end of the data altogether.
    const cut = Buffer.from('3003040500', 'hex');
    expect(() => readDerChildren(cut, readDer(cut, 0))).toThrow('past the end of data');
  });
});

describe('readOid', () => {
  it('reads multi-byte arcs', () => {
    expect(oidOf('0609608648016503040201')).toBe('2.16.840.1.101.3.4.2.1');
    expect(oidOf('06092a864886f70d010702')).toBe('1.2.840.113549.1.7.2');
    expect(oidOf('06032b0e03')).toBe('1.3.14.3');
  });

  it('reads arcs of 128 and more, and ones past 2^53 exactly', () => {
    expect(oidOf('06022a03')).toBe('1.2.3');
    expect(oidOf('06032a817f')).toBe('1.2.255');
    // A first subidentifier of three bytes: 16384 is 2.16304.
    expect(oidOf('0603818000')).toBe('2.16304');
    // A UUID arc (X.667), 128 bits.
    expect(oidOf('06146983f09da7ebcfdee0c7a1a7b2c0948cc8f9d776')).toBe(
      '2.25.329800735698586629295641978511506172918',
    );
  });

  it('splits the first subidentifier into arcs 0, 1 and 2 (2 with a second arc of 40 and more)', () => {
    expect(oidOf('0603270102')).toBe('0.39.1.2');
    expect(oidOf('0602284f')).toBe('1.0.79');
    expect(oidOf('060150')).toBe('2.0');
    // 120 is 2.40, not 3.0; 0x88 0x37 (1079) is 2.999.
    expect(oidOf('060178')).toBe('2.40');
    expect(oidOf('06028837')).toBe('2.999');
    expect(oidOf('0603883703')).toBe('2.999.3');
  });

  it('reads back what derOid writes', () => {
    for (const oid of ['1.2.840.113549.1.9.16.2.14', '2.999.1', '2.40', '0.9.2342.19200300.100.1.1']) {
      const der = derOid(oid);
      expect(readOid(der, readDer(der, 0))).toBe(oid);
    }
  });

  it("reads a malformed OID as '', which matches no known one", () => {
    expect(oidOf('0600')).toBe('');
    // Cut off inside its last subidentifier (sha256 with a continuation bit on its last byte).
    expect(oidOf('0609608648016503040281')).toBe('');
    // Padded with a leading 0x80: another spelling of 2.16.840.1.101.3.4.2.1, not DER.
    expect(oidOf('060a60808648016503040201')).toBe('');
  });
});

describe('readTime', () => {
  it('reads UTCTime years 50-99 as 1950-1999 and 00-49 as 2000-2049', () => {
    expect(timeOf(0x17, '491231235959Z').toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(timeOf(0x17, '500101000000Z').toISOString()).toBe('1950-01-01T00:00:00.000Z');
    expect(timeOf(0x17, '000229120000Z').toISOString()).toBe('2000-02-29T12:00:00.000Z');
  });

  it('reads GeneralizedTime with and without a fraction of a second', () => {
    expect(timeOf(0x18, '20261121164005Z').toISOString()).toBe('2026-11-21T16:40:05.000Z');
    expect(timeOf(0x18, '20261121164005.5Z').toISOString()).toBe('2026-11-21T16:40:05.500Z');
    expect(timeOf(0x18, '20261121164005.123456Z').toISOString()).toBe('2026-11-21T16:40:05.123Z');
    expect(timeOf(0x18, '20500101000000Z').toISOString()).toBe('2050-01-01T00:00:00.000Z');
  });

  it('reads a time without seconds (BER), as the verifier always did', () => {
    expect(timeOf(0x17, '2611211640Z').toISOString()).toBe('2026-11-21T16:40:00.000Z');
    expect(timeOf(0x18, '202611211640Z').toISOString()).toBe('2026-11-21T16:40:00.000Z');
  });

  it('takes the width of the year from the tag, not from the length of the text', () => {
    // 12 digits under GeneralizedTime are YYYYMMDDHHMM (here month 21), never YYMMDDHHMMSS.
    expect(() => timeOf(0x18, '261121164005Z')).toThrow('no such time');
    expect(() => timeOf(0x17, '20261121164005Z')).toThrow('unreadable time');
  });

  it('refuses offsets, local times, fractions in UTCTime and dates that do not exist', () => {
    for (const [tag, text] of [
      [0x17, '261121164005+0100'],
      [0x18, '20261121164005+0100'],
      [0x18, '20261121164005'],
      [0x17, '261121164005.5Z'],
      [0x17, '20261121164005Z'],
      [0x18, '20261321164005Z'],
      [0x18, '20260230120000Z'],
      [0x18, '20261121246005Z'],
      [0x17, ''],
    ] as const) {
      expect(() => timeOf(tag, text), `${tag.toString(16)} ${text}`).toThrow(DerError);
    }
  });

  it('refuses an element that is not a time', () => {
    const der = derSequence();
    expect(() => readTime(der, readDer(der, 0))).toThrow('is not a time');
  });
});

describe('integerMagnitude', () => {
  it('drops leading zero bytes but keeps one byte', () => {
    expect(integerMagnitude(Buffer.from([0, 0x80, 1])).toString('hex')).toBe('8001');
    expect(integerMagnitude(Buffer.from([0, 0])).toString('hex')).toBe('00');
  });
});

import { describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import {
  derContext,
  derElement,
  derNull,
  derOctetString,
  derOid,
  derSequence,
  derSetOf,
  derSmallInteger,
  derUnsignedInteger,
} from '../der/encode-der';
import { derContent, readDer, readDerChildren } from '../der/read-der';
import { TimestampAuthorityError } from './ports';
import type { LtvObserver, LtvRequest, TimestampAuthority } from './ports';
import { createTimestamper } from './request-timestamp';

/**
 * A TimeStampResp granting a token over the query's imprint with the query's nonce, as a TSA would
 * (unsigned: the timestamper checks the answer's content, verifiers check the TSA's signature).
 */
const grant = (query: Buffer, genTime = '20261121164005.25Z'): Buffer => {
  const [, imprint, nonce] = readDerChildren(query, readDer(query, 0));
  if (!imprint || !nonce) throw new Error('not a TimeStampReq');
  const tstInfo = derSequence(
    derSmallInteger(1),
    derOid('1.2.3.4'),
    query.subarray(imprint.start, imprint.end),
    derSmallInteger(7),
    derElement(0x18, Buffer.from(genTime, 'latin1')),
    derUnsignedInteger(derContent(query, nonce)),
  );
  const signedData = derSequence(
    derSmallInteger(3),
    derSetOf(derSequence(derOid('2.16.840.1.101.3.4.2.1'), derNull())),
    derSequence(derOid('1.2.840.113549.1.9.16.1.4'), derContext(0, derOctetString(tstInfo))),
    derSetOf(),
  );
  const token = derSequence(derOid('1.2.840.113549.1.7.2'), derContext(0, signedData));
  return derSequence(derSequence(derSmallInteger(0)), token);
};

/** A fake authority: answers with `answer(query)` and counts the queries it got. */
const authority = (url: string, answer: (query: Buffer) => Promise<Buffer>) => {
  const queries: Buffer[] = [];
  const sut: TimestampAuthority = {
    url,
    provider: new URL(url).host,
    request: (query) => {
      queries.push(query);
      return answer(query);
    },
  };
  return { sut, queries };
};

const logged = () => {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: (_message: string, fields?: Record<string, unknown>) => lines.push(fields ?? {}) };
};

describe('createTimestamper', () => {
  it('answers the first usable token, with its time to the millisecond', async () => {
    const tsa = authority('http://tsa.example/', (query) => Promise.resolve(grant(query)));
    const timestamp = createTimestamper({ authorities: [tsa.sut], maxTokenBytes: 4096 });
    const stamped = await timestamp(Buffer.from('signature value'));
    expect(stamped).toMatchObject({
      time: '2026-11-21T16:40:05.250Z',
      authority: 'unnamed time-stamping authority',
      url: 'http://tsa.example/',
    });
    expect(tsa.queries).toHaveLength(1);
  });

  it('asks the next authority when one fails, and logs why each failed', async () => {
    const down = authority('http://down.example/', () =>
      Promise.reject(new TimestampAuthorityError('no answer within 5000 ms')),
    );
    const broken = authority('http://broken.example/', () => Promise.reject(new Error('socket hang up')));
    const garbage = authority('http://garbage.example/', () => Promise.resolve(Buffer.from('<html>')));
    const offset = authority('http://offset.example/', (query) =>
      Promise.resolve(grant(query, '20261121164005+0100')),
    );
    const backup = authority('http://backup.example/', (query) => Promise.resolve(grant(query)));
    const { lines, log } = logged();
    const timestamp = createTimestamper(
      { authorities: [down.sut, broken.sut, garbage.sut, offset.sut, backup.sut], maxTokenBytes: 4096 },
      log,
    );
    const stamped = await timestamp(Buffer.from('signature value'));
    expect(stamped.url).toBe('http://backup.example/');
    const reasons = lines.map(({ tsa, reason }) => `${String(tsa)} ${String(reason)}`);
    expect(reasons).toHaveLength(4);
    expect(reasons[0]).toBe('http://down.example/ no answer within 5000 ms');
    expect(reasons[1]).toBe('http://broken.example/ Error: socket hang up');
    expect(reasons[2]).toMatch(/^http:\/\/garbage\.example\/ DerError: DER: /);
    expect(reasons[3]).toBe('http://offset.example/ TSTInfo genTime: not a UTC GeneralizedTime');
  });

  it('throws unavailable when no authority answers usably, never a local time', async () => {
    const refused = authority('http://refused.example/', () =>
      Promise.resolve(derSequence(derSequence(derSmallInteger(2)))),
    );
    const tooLarge = authority('http://large.example/', (query) => Promise.resolve(grant(query)));
    const { lines, log } = logged();
    const timestamp = createTimestamper({ authorities: [refused.sut, tooLarge.sut], maxTokenBytes: 64 }, log);
    await expect(timestamp(Buffer.from('signature value'))).rejects.toMatchObject({
      code: 'unavailable',
      message: 'no time-stamping authority answered; retry',
    });
    await expect(timestamp(Buffer.from('x'))).rejects.toBeInstanceOf(ServiceError);
    expect(lines[0]).toMatchObject({ tsa: 'http://refused.example/', reason: 'TSA refused: PKIStatus 02' });
    expect(String(lines[1]?.reason)).toMatch(
      /^token of \d+ bytes is larger than TSA_TOKEN_MAX_BYTES \(64\)$/,
    );
  });

  it('tells its observer of every authority asked, by provider (the host, never the path), with its outcome', async () => {
    const down = authority('http://down.example:8080/tsa?key=secret', () =>
      Promise.reject(new TimestampAuthorityError('HTTP 503')),
    );
    const backup = authority('http://backup.example/tsa', (query) => Promise.resolve(grant(query)));
    const requests: LtvRequest[] = [];
    const observer: LtvObserver = {
      request: (request) => requests.push(request),
      timestampCertificate: () => undefined,
      revocationExpiry: () => undefined,
    };
    const timestamp = createTimestamper({
      authorities: [down.sut, backup.sut],
      maxTokenBytes: 4096,
      observer,
    });
    await timestamp(Buffer.from('signature value'));
    expect(requests.map(({ kind, provider, ok }) => ({ kind, provider, ok }))).toEqual([
      { kind: 'timestamp', provider: 'down.example:8080', ok: false },
      { kind: 'timestamp', provider: 'backup.example', ok: true },
    ]);
    expect(requests.every(({ seconds }) => seconds >= 0 && seconds < 5)).toBe(true);
  });
});

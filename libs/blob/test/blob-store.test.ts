import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3, type TestS3 } from '@esign/testing';
import { ServiceError } from '@esign/contracts';
import { createBlobStore, isMissingObject, PART_BYTES, type BlobStore } from '../src';

let s3: TestS3;
let sut: BlobStore;

beforeAll(async () => {
  s3 = await startTestS3();
  sut = createBlobStore({ ...s3, bucket: 'blob-test' });
  await sut.ensureBucket();
});
afterAll(() => s3.stop());

/** A stream that yields `total` bytes in chunks of `chunk`, like a network upload. */
const streamOf = (bytes: Buffer, chunk = 64 * 1024) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    })(),
  );

describe('blob store over the S3 protocol', () => {
  it('stores a buffer and reads it back, and stat/remove/list work', async () => {
    const bytes = randomBytes(1000);
    expect(await sut.put('a/one', bytes)).toBe(1000);
    expect(await sut.getBuffer('a/one')).toEqual(bytes);
    expect(await sut.stat('a/one')).toEqual({ size: 1000 });
    expect(await sut.list('a/')).toEqual(['a/one']);
    await sut.remove('a/one');
    expect(await sut.stat('a/one')).toBeUndefined();
  });

  it('stores a short stream of unknown length in one piece', async () => {
    const bytes = randomBytes(300_000);
    expect(await sut.put('b/short', streamOf(bytes))).toBe(bytes.length);
    expect(await sut.getBuffer('b/short')).toEqual(bytes);
  });

  it('stores a stream longer than a part as a multipart upload, byte for byte', async () => {
    const bytes = randomBytes(PART_BYTES * 2 + 12345);
    expect(await sut.put('b/long', streamOf(bytes))).toBe(bytes.length);
    const back = await sut.getBuffer('b/long');
    expect(back.length).toBe(bytes.length);
    expect(back.equals(bytes)).toBe(true);
  });

  it('copies an object on the server, its content type with it, and leaves the source', async () => {
    const bytes = randomBytes(200_000);
    await sut.put('uploads/to-copy', bytes, { contentType: 'application/pdf' });
    await sut.copy('uploads/to-copy', 'pending/acct/copied.pdf');
    expect(await sut.getBuffer('pending/acct/copied.pdf')).toEqual(bytes);
    const copied = (await sut.get('pending/acct/copied.pdf')) as IncomingMessage;
    copied.resume();
    expect(copied.headers['content-type']).toBe('application/pdf');
    expect(await sut.stat('uploads/to-copy')).toEqual({ size: bytes.length });
  });

  it('gives the copy a content type of its own when asked', async () => {
    await sut.put('uploads/untyped', Buffer.from('%PDF-1.7'));
    await sut.copy('uploads/untyped', 'pending/acct/typed.pdf', { contentType: 'application/pdf' });
    const copied = (await sut.get('pending/acct/typed.pdf')) as IncomingMessage;
    copied.resume();
    expect(copied.headers['content-type']).toBe('application/pdf');
  });

  it('refuses to copy a missing object as a missing object (404), not as storage being down', async () => {
    const err: unknown = await sut
      .copy('uploads/never-there', 'pending/acct/none.pdf')
      .catch((e: unknown) => e);
    expect(isMissingObject(err)).toBe(true);
    expect(await sut.stat('pending/acct/none.pdf')).toBeUndefined();
  });

  it('stores nothing when the stream fails midway', async () => {
    const failing = new Readable({ read() {} });
    const done = sut.put('b/failed', failing);
    failing.push(randomBytes(PART_BYTES + 1));
    failing.destroy(new Error('client went away'));
    await expect(done).rejects.toThrow('client went away');
    expect(await sut.stat('b/failed')).toBeUndefined();
  });
});

describe('blob store when object storage is down', () => {
  it('reports every data operation as unavailable (a 503 at the edge), not as a bug', async () => {
    const down = await startTestS3();
    const store = createBlobStore({ ...down, bucket: 'gone' });
    await store.ensureBucket();
    await down.stop();
    const attempts: [string, () => Promise<unknown>][] = [
      ['put', () => store.put('uploads/a', Buffer.from('x'))],
      ['put stream', () => store.put('uploads/a', streamOf(randomBytes(10)))],
      ['get', () => store.get('uploads/a')],
      ['getBuffer', () => store.getBuffer('uploads/a')],
      ['stat', () => store.stat('uploads/a')],
      ['remove', () => store.remove('uploads/a')],
      ['copy', () => store.copy('uploads/a', 'pending/a')],
      ['list', () => store.list('uploads/')],
    ];
    for (const [name, attempt] of attempts) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, name).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).code, name).toBe('unavailable');
      expect((err as ServiceError).message, name).toMatch(/^object storage is unavailable/);
    }
    expect(await store.ping()).toBe(false);
  });
});

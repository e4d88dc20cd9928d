import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { createLogger, createOutageLog } from '@esign/telemetry';
import { startTestS3, type TestS3 } from '@esign/testing';
import { withUpload } from '../src/handlers/read-upload';

/**
 * Issue 27, "one line per outage": while object storage was away the signer wrote a warning with its
 * stack for every upload it could not delete (one per signing). With the clean-up's outage log, an
 * outage is one `dependency unavailable` line and one `dependency available again`.
 */
/** A loopback port nothing listens on (taken, then let go). */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

let s3: TestS3;
let live: BlobStore;
/** The same bucket through an address nothing listens on: every call is refused, as during an outage. */
let away: BlobStore;

beforeAll(async () => {
  s3 = await startTestS3();
  live = createBlobStore({ ...s3, bucket: 'cleanup-test' });
  await live.ensureBucket();
  away = createBlobStore({
    ...s3,
    endpoint: `http://127.0.0.1:${await closedPort()}`,
    bucket: 'cleanup-test',
  });
});
afterAll(async () => {
  await s3?.stop();
});

describe('upload clean-up while object storage is away', () => {
  it('logs one line for the outage, not one per request, and one when deletes work again', async () => {
    const lines: { level: string; msg: string; err?: unknown }[] = [];
    const logger = createLogger({
      service: 'test',
      write: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }),
    });
    const sut = createOutageLog({ logger, dependency: 'object storage (upload clean-up)' });
    const consume = (blob: BlobStore, uploadKey: string) =>
      withUpload({ blob, uploadKey, maxBytes: 1024, consume: true, logger, cleanupOutage: sut }, (bytes) =>
        Promise.resolve(bytes.length),
      );

    // Reads work, deletes are refused: 20 signings during the outage.
    const readsOnly: BlobStore = { ...live, remove: (key) => away.remove(key) };
    for (let i = 0; i < 20; i++) {
      const key = `uploads/${randomUUID()}`;
      await live.put(key, Buffer.from('%PDF-1.7'));
      await expect(consume(readsOnly, key)).resolves.toBe(8);
    }
    // Storage back: the next delete closes the outage.
    const key = `uploads/${randomUUID()}`;
    await live.put(key, Buffer.from('%PDF-1.7'));
    await consume(live, key);
    expect(await live.stat(key)).toBeUndefined();

    // The outage is over once deletes have worked for the settling time (1 s).
    await vi.waitFor(
      () =>
        expect(lines.map((l) => [l.level, l.msg])).toEqual([
          ['warn', 'dependency unavailable'],
          ['info', 'dependency available again'],
        ]),
      5000,
    );
    expect(lines[1]).toMatchObject({ failures: 20 });
    expect(lines.filter((l) => l.err !== undefined)).toEqual([]);
  });
});

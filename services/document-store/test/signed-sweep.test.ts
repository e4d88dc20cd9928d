import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { DocumentRecord } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import { createLogger } from '@esign/telemetry';
import { startTestS3, type TestS3 } from '@esign/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDocumentStore } from '../src/start';
import { createSignedSweep } from '../src/sweep/signed-sweep';
import { recordRequest, test, type TestBed } from './helpers';

const GRACE_MS = 1500;

let bed: TestBed;
let s3: TestS3;
let blob: BlobStore;
let pool: pg.Pool;

const signedKey = (accountId: string, auditId: string) => `signed/${accountId}/${auditId}.pdf`;
const exists = async (key: string) => (await blob.stat(key)) !== undefined;

// The store migrates the schema; its own timer stays off here, the tests run the sweep themselves.
test.override('storeOptions', { label: 'docs_sweep', config: { SIGNED_SWEEP_INTERVAL_MS: 0 } });

test.beforeAll(({ bed: fileBed }) => {
  bed = fileBed;
  pool = new pg.Pool({ connectionString: bed.database.url, max: 2 });
});

beforeAll(async () => {
  s3 = await startTestS3();
  blob = createBlobStore({ ...s3, bucket: 'esign' });
  await blob.ensureBucket();
});

afterAll(async () => {
  await pool?.end();
  await s3?.stop();
});

describe('the sweep of signed PDFs without a record', () => {
  it('removes an unrecorded signed object past the grace period, keeps recorded and young ones', async () => {
    const accountId = randomUUID();
    const recorded = recordRequest({ accountId });
    recorded.objectKey = signedKey(accountId, recorded.auditId);
    const orphan = signedKey(accountId, newAuditId());
    const foreign = 'signed/notes.txt';
    for (const key of [recorded.objectKey, orphan, foreign])
      await blob.put(key, Buffer.from('%PDF-1.7 test'));
    await bed.client.request(DocumentRecord, recorded);

    // Ages are real storage times in whole seconds: the young object is written a second later, and
    // the sweep runs at the instant its grace period ends (the others' ended a second before).
    await sleep(1000);
    const young = signedKey(accountId, newAuditId());
    await blob.put(young, Buffer.from('%PDF-1.7 young'));
    const listed = await blob.listObjects(`signed/${accountId}/`, { limit: 10 });
    const youngWrittenAt = listed.find((object) => object.key === young)?.lastModified.getTime() ?? 0;

    const sweep = createSignedSweep({
      pool,
      blob,
      logger: createLogger({ service: 'sweep-test', level: 'error' }),
      graceMs: GRACE_MS,
      batch: 100,
    });
    const result = await sweep.runOnce(new Date(youngWrittenAt + GRACE_MS));
    expect(result).toMatchObject({ examined: 4, removed: [orphan], unrecognised: 1 });
    expect(await exists(orphan)).toBe(false);
    expect(await exists(recorded.objectKey)).toBe(true);
    expect(await exists(young)).toBe(true);
    expect(await exists(foreign)).toBe(true);
  });

  it('lets one replica sweep at a time', async () => {
    const accountId = randomUUID();
    const orphan = signedKey(accountId, newAuditId());
    await blob.put(orphan, Buffer.from('%PDF-1.7 orphan'));
    const now = new Date(Date.now() + GRACE_MS + 60_000);
    const sweep = createSignedSweep({
      pool,
      blob,
      logger: createLogger({ service: 'sweep-test', level: 'error' }),
      graceMs: GRACE_MS,
      batch: 100,
    });
    // Another replica's sweep holds the lock.
    const other = new pg.Client({ connectionString: bed.database.url });
    await other.connect();
    try {
      await other.query(`select pg_advisory_lock(hashtext('documents:signed-sweep'))`);
      expect(await sweep.runOnce(now)).toBeUndefined();
      expect(await exists(orphan)).toBe(true);
      await other.query(`select pg_advisory_unlock(hashtext('documents:signed-sweep'))`);
    } finally {
      await other.end();
    }
    expect((await sweep.runOnce(now))?.removed).toContain(orphan);
    expect(await exists(orphan)).toBe(false);
  });

  it('looks at a bounded page per run and continues where the last run stopped', async () => {
    const accountId = randomUUID();
    const orphans = Array.from({ length: 5 }, () => signedKey(accountId, newAuditId())).sort();
    for (const key of orphans) await blob.put(key, Buffer.from('%PDF-1.7 orphan'));
    const now = new Date(Date.now() + GRACE_MS + 60_000);
    const sweep = createSignedSweep({
      pool,
      blob,
      logger: createLogger({ service: 'sweep-test', level: 'error' }),
      graceMs: GRACE_MS,
      batch: 2,
    });
    const seen: number[] = [];
    await vi.waitFor(
      async () => {
        const result = await sweep.runOnce(now);
        seen.push(result?.examined ?? -1);
        expect(await blob.listObjects(`signed/${accountId}/`, { limit: 10 })).toEqual([]);
      },
      { timeout: 10_000, interval: 25 },
    );
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
  });

  it('runs on its own timer in the service', async () => {
    const accountId = randomUUID();
    const orphan = signedKey(accountId, newAuditId());
    await blob.put(orphan, Buffer.from('%PDF-1.7 orphan'));
    const store = await startDocumentStore(
      {
        ...bed.config,
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
        S3_REGION: s3.region,
        S3_BUCKET: 'esign',
        SIGNED_SWEEP_INTERVAL_MS: 200,
        SIGNED_SWEEP_GRACE_MS: GRACE_MS,
      },
      // Its runs see the orphan past the grace period instead of the test waiting it out.
      { signedSweepNow: () => new Date(Date.now() + GRACE_MS + 60_000) },
    );
    try {
      await expect.poll(() => exists(orphan), { timeout: 10_000 }).toBe(false);
    } finally {
      await store.stop();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { DocumentRecord, DocumentSigned, SigningCancel, SigningCreate } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import { createLogger } from '@esign/telemetry';
import { metricValue, promtoolCheckMetrics, scrapeMetrics, startTestS3, type TestS3 } from '@esign/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentStore, type DocumentStore } from '../src/start';
import { createTestBed, recordRequest, type TestBed } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

let bed: TestBed;
let s3: TestS3;
let blob: BlobStore;
let db: pg.Client;
let store: DocumentStore;
/** The signing requests' clock (expiry): a test moves it. */
let clockOffsetMs = 0;

beforeAll(async () => {
  bed = await createTestBed('docs_metrics');
  s3 = await startTestS3();
  blob = createBlobStore({ ...s3, bucket: 'esign' });
  await blob.ensureBucket();
  db = new pg.Client({ connectionString: bed.database.url });
  store = await startDocumentStore(
    {
      ...bed.config,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_REGION: s3.region,
      S3_BUCKET: 'esign',
      // The relay publishes only when a write wakes it: a row inserted behind its back waits.
      OUTBOX_POLL_MS: 3_600_000,
      SIGNED_SWEEP_INTERVAL_MS: 100,
      SIGNED_SWEEP_GRACE_MS: 60_000,
      SIGNING_SWEEP_INTERVAL_MS: 100,
      METRICS_EXPORTER: 'prometheus',
    },
    {
      logger: createLogger({ service: 'docs-metrics', level: 'error', write: () => undefined }),
      now: () => new Date(Date.now() + clockOffsetMs),
      // The signed-object sweep sees every object past its grace period.
      signedSweepNow: () => new Date(Date.now() + 120_000),
    },
  );
  await db.connect();
});

afterAll(async () => {
  await store?.stop();
  await db?.end();
  await s3?.stop();
  await bed?.close();
});

const scrape = () => scrapeMetrics(store.healthPort);

describe('document-store’s metrics', () => {
  it('shows an outbox row not yet published and its age, and neither once the relay has published it', async () => {
    const request = recordRequest();
    const id = randomUUID();
    const payload = DocumentSigned.payload.parse({
      documentId: randomUUID(),
      accountId: request.accountId,
      auditId: request.auditId,
      fileHash: request.fileHash,
      signedAt: request.signedAt,
      eventId: id,
      fileName: request.fileName,
      signerName: request.signerName,
      signerEmail: request.signerEmail,
      objectKey: request.objectKey,
    });
    // Written 30 s ago behind the relay's back (as by a replica that died before publishing it).
    await db.query(
      `insert into documents.outbox (id, subject, payload, created_at) values ($1, $2, $3, now() - interval '30 seconds')`,
      [id, DocumentSigned.subject, payload],
    );
    const text = await scrape();
    expect(metricValue(text, 'esign_outbox_pending')).toBe(1);
    expect(metricValue(text, 'esign_outbox_oldest_age')).toBeGreaterThanOrEqual(30);

    // A record wakes the relay, which publishes every row waiting, oldest first.
    await bed.client.request(DocumentRecord, recordRequest());
    await expect
      .poll(
        async () => {
          const after = await scrape();
          return [metricValue(after, 'esign_outbox_pending'), metricValue(after, 'esign_outbox_oldest_age')];
        },
        { timeout: 5000 },
      )
      .toEqual([0, 0]);
  });

  it('counts signing requests by state, and the sweeps’ runs and what they collected', async () => {
    const orphan = `signed/${randomUUID()}/${newAuditId()}.pdf`;
    await blob.put(orphan, Buffer.from('%PDF-1.7 orphan'));
    const create = async () => {
      const accountId = randomUUID();
      const { sendId } = await bed.client.request(SigningCreate, {
        accountId,
        senderEmail: 'sender@example.com',
        recipientEmail: 'rita@example.com',
        recipientName: 'Rita Recipient',
        subject: 'Please sign: lease.pdf',
        fileName: 'lease.pdf',
        objectKey: `pending/${accountId}/${randomUUID()}.pdf`,
        positions: [{ x: 10, y: 80, width: 30, page: 1 }],
        pageCount: 1,
      });
      return { accountId, sendId };
    };
    await create();
    const canceled = await create();
    await bed.client.request(SigningCancel, canceled);

    const states = async (healthPort: number) => {
      const text = await scrapeMetrics(healthPort);
      return Object.fromEntries(
        ['pending', 'signed', 'declined', 'canceled', 'expired'].map((state) => [
          state,
          metricValue(text, 'esign_signing_requests', { esign_state: state }),
        ]),
      );
    };
    // The ended states are counted at most every 5 minutes: this store counted them (none) at the
    // first test's scrapes and reports that count still; a replica started now counts them afresh.
    expect(await states(store.healthPort)).toEqual({
      pending: 1,
      signed: 0,
      declined: 0,
      canceled: 0,
      expired: 0,
    });
    const replica = await startDocumentStore(
      {
        ...bed.config,
        SIGNED_SWEEP_INTERVAL_MS: 0,
        SIGNING_SWEEP_INTERVAL_MS: 0,
        METRICS_EXPORTER: 'prometheus',
      },
      { logger: createLogger({ service: 'docs-metrics', level: 'error', write: () => undefined }) },
    );
    try {
      expect(await states(replica.healthPort)).toEqual({
        pending: 1,
        signed: 0,
        declined: 0,
        canceled: 1,
        expired: 0,
      });
    } finally {
      await replica.stop();
    }

    // Past the expiry: the sweep expires the pending request and removes both originals.
    clockOffsetMs = 400 * DAY;
    const swept = async (item: string) =>
      metricValue(await scrape(), 'esign_sweep_collected_total', {
        esign_sweep: 'signing_requests',
        esign_item: item,
      });
    await expect.poll(() => swept('expired_request'), { timeout: 5000 }).toBe(1);
    await expect.poll(() => swept('original'), { timeout: 5000 }).toBe(2);
    // Pending is counted live; the ended states come from a count at most 5 minutes old.
    expect((await states(store.healthPort)).pending).toBe(0);

    await expect
      .poll(
        async () =>
          metricValue(await scrape(), 'esign_sweep_collected_total', {
            esign_sweep: 'signed_objects',
            esign_item: 'signed_object',
          }),
        { timeout: 5000 },
      )
      .toBe(1);
    const text = await scrape();
    for (const sweep of ['signed_objects', 'signing_requests']) {
      expect(
        metricValue(text, 'esign_sweep_runs_total', { esign_sweep: sweep, esign_outcome: 'ok' }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        metricValue(text, 'esign_sweep_runs_total', { esign_sweep: sweep, esign_outcome: 'error' }),
      ).toBe(undefined);
    }
    expect(await promtoolCheckMetrics(text)).toEqual({ code: 0, output: '' });
  });
});

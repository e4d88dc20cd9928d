import { createHash, randomUUID } from 'node:crypto';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  PdfCompleteEnvelope,
  PdfPrepareEnvelope,
  type TRecordDocumentRequest,
  type TStoredAuditEvent,
} from '@esign/contracts';
import type { z } from 'zod';
import { newAuditId } from '@esign/ids';
import { createLogger, type Logger } from '@esign/telemetry';
import {
  createTestDatabase,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
  type TestDatabase,
} from '@esign/testing';
import pg from 'pg';
import { test as baseTest } from 'vitest';
import { loadDocumentStoreConfig, type TDocumentStoreConfig } from '../src/config';
import { startDocumentStore } from '../src/start';

/** A database, a bus prefix and a client for one test file; `close` undoes all of it. */
export interface TestBed {
  readonly database: TestDatabase;
  readonly config: TDocumentStoreConfig;
  readonly client: Bus;
  close(): Promise<void>;
}

export const createTestBed = async (label: string): Promise<TestBed> => {
  const natsUrl = await testNatsUrl();
  const database = await createTestDatabase(`docs_${label}`);
  const prefix = uniqueBusPrefix(label);
  const config = loadDocumentStoreConfig({
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    BUS_PREFIX: prefix,
    LOG_LEVEL: 'error',
  });
  const client = await connectBus({
    url: natsUrl,
    name: `${label}-test`,
    prefix,
    logger: createLogger({ service: `${label}-test`, level: 'error' }),
    timeoutMs: 10_000,
  });
  return {
    database,
    config,
    client,
    async close() {
      await client.drain();
      await database.drop();
    },
  };
};

/** How a test file runs its document-store: set with `test.override('storeOptions', …)` at its top. */
export interface TStoreOptions {
  /** Names the file's database and bus prefix. */
  readonly label: string;
  /** Settings the file changes (timers off, pool size…). */
  readonly config?: Partial<TDocumentStoreConfig>;
  /** The store's clock (signing requests). */
  readonly now?: () => Date;
  readonly logger?: Logger;
}

/**
 * The document-store test bed, once per test file: `bed` (its own database, bus prefix and client),
 * `objects` (the embedded S3 server the store uses, and a client of its bucket), `sut` (the store
 * running on them, started for every file) and `db` (a plain connection to look at the tables). Each is torn down after the file's last test, in reverse order. A file takes them in
 * `test.beforeAll` (or a test in its context).
 */
export const test = baseTest
  .extend('storeOptions', { scope: 'file' }, { label: 'docs' } as TStoreOptions)
  .extend('bed', { scope: 'file' }, async ({ storeOptions }, { onCleanup }) => {
    const bed = await createTestBed(storeOptions.label);
    onCleanup(() => bed.close());
    return bed;
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's needs from its destructuring: none here
  .extend('objects', { scope: 'file' }, async ({}, { onCleanup }) => {
    const s3 = await startTestS3();
    onCleanup(() => s3.stop());
    const blob = createBlobStore({ ...s3, bucket: 'esign' });
    await blob.ensureBucket();
    return { s3, blob };
  })
  .extend('sut', { scope: 'file', auto: true }, async ({ bed, storeOptions, objects }, { onCleanup }) => {
    const { s3 } = objects;
    const sut = await startDocumentStore(
      {
        ...bed.config,
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
        S3_REGION: s3.region,
        S3_BUCKET: 'esign',
        ...storeOptions.config,
      },
      { now: storeOptions.now, logger: storeOptions.logger },
    );
    // Stopping twice is harmless: a file may stop it itself to test a restart.
    onCleanup(() => sut.stop());
    return sut;
  })
  .extend('db', { scope: 'file' }, async ({ bed }, { onCleanup }) => {
    const db = new pg.Client({ connectionString: bed.database.url });
    await db.connect();
    onCleanup(() => db.end());
    return db;
  });

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A valid `document.record` request; override what the test is about. */
export const recordRequest = (overrides: Partial<TRecordDocumentRequest> = {}): TRecordDocumentRequest => ({
  accountId: randomUUID(),
  auditId: newAuditId(),
  fileName: 'contract.pdf',
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  ipAddress: '203.0.113.7',
  userAgent: 'vitest',
  signedAt: '2025-01-15T12:00:00.000Z',
  fileHash: `sha256:${sha256Hex(randomUUID())}`,
  originalHash: `sha256:${sha256Hex(randomUUID())}`,
  objectKey: `signed/${randomUUID()}.pdf`,
  size: 1234,
  pageCount: 1,
  events: [{ event: 'document.signed', timestamp: '2025-01-15T12:00:00.000Z', details: {} }],
  ...overrides,
});

// An independent re-implementation of the documented canonical form, so the test checks the doc too.
const canonical = (value: unknown): string => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

/** Recompute every hash of an audit log as an outside verifier would; returns the entries that fail. */
export const verifyAuditChain = (auditId: string, log: readonly TStoredAuditEvent[]): number[] => {
  const broken: number[] = [];
  let prevHash = '0'.repeat(64);
  for (const [i, entry] of log.entries()) {
    const hash = sha256Hex(
      canonical({
        auditId,
        sequence: i,
        event: entry.event,
        timestamp: entry.timestamp,
        details: entry.details,
        prevHash,
      }),
    );
    if (entry.sequence !== i || entry.prevHash !== prevHash || entry.hash !== hash) broken.push(i);
    prevHash = entry.hash;
  }
  return broken;
};

/**
 * pdf-signer's `pdf.prepare-envelope` as document-store sees it, for files that do not look at
 * revision 0's content: the original copied to the target (an empty revision 0 when the request was
 * made straight on the bus, with no original uploaded).
 */
export const prepareEnvelopeStandIn = (blob: () => BlobStore) =>
  endpoint(PdfPrepareEnvelope, async (request) => {
    const store = blob();
    if (await store.stat(request.sourceKey)) await store.copy(request.sourceKey, request.targetKey);
    else await store.put(request.targetKey, Buffer.from('%PDF-1.7 revision 0'));
    const bytes = await store.getBuffer(request.targetKey);
    return {
      objectKey: request.targetKey,
      fileHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
      pageCount: 3,
      certificatePages: 1,
      events: [],
    };
  });

/**
 * pdf-signer's `pdf.complete-envelope` as document-store sees it: the head copied to the signed key and
 * its hash answered, with the audit events `events` makes (none by default). `seen` gets each request
 * first (a test keeps the certificate's recipients); a sealing fails when it throws.
 */
type TCompleteEnvelopeRequest = z.output<(typeof PdfCompleteEnvelope)['request']>;
type TCompleteEnvelopeReply = z.input<(typeof PdfCompleteEnvelope)['reply']>;

export const completeEnvelopeStandIn = (
  blob: () => BlobStore,
  seen: (request: TCompleteEnvelopeRequest) => void = () => undefined,
  events: (request: TCompleteEnvelopeRequest) => TCompleteEnvelopeReply['events'] = () => [],
) =>
  endpoint(PdfCompleteEnvelope, async (request) => {
    seen(request);
    const store = blob();
    const signedKey = `signed/${request.accountId}/${request.auditId}.pdf`;
    await store.copy(request.sourceKey, signedKey);
    const bytes = await store.getBuffer(signedKey);
    return {
      signedKey,
      signedFileName: request.fileName.replace(/\.pdf$/, '-signed.pdf'),
      fileHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
      pageCount: 2,
      signedAt: new Date().toISOString(),
      events: events(request),
    };
  });

/** A bus connection of pdf-signer's name on the store's prefix, serving `endpoints` (stand-ins). */
export const servePdfSigner = async (
  config: Pick<TDocumentStoreConfig, 'NATS_URL' | 'BUS_PREFIX'>,
  endpoints: Parameters<Bus['serve']>[0],
): Promise<Bus> => {
  const pdf = await connectBus({
    url: config.NATS_URL,
    name: 'pdf-signer',
    prefix: config.BUS_PREFIX,
    logger: createLogger({ service: 'test', level: 'error' }),
    timeoutMs: 5000,
  });
  await pdf.serve(endpoints);
  return pdf;
};

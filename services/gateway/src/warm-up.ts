import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BlobStore } from '@esign/blob';
import { busOptionsFrom, connectBus, endpoint, type Bus } from '@esign/bus';
import {
  DocumentQuotaReserve,
  DocumentRecord,
  KeyVerify,
  LIVE_KEY_PREFIX,
  PdfSign,
  ServiceError,
  signedFileNameFor,
  type TPlan,
} from '@esign/contracts';
import {
  createLogger,
  REHEARSAL_HEADER,
  rehearsalToken,
  unrecordedInstruments,
  untraced,
  type Logger,
} from '@esign/telemetry';
import type { IdempotencyStore } from './api/idempotency';
import { createApp } from './app';
import type { TGatewayConfig } from './config';
import { composeDeps } from './deps';
import { sha256Hex } from './http/auth';
import { createKeyCache } from './http/key-cache';
import { createRateCounter } from './http/rate-counter';
import { createEdgeMetrics } from './http/request-metrics';
import { WARM_UP_CONCURRENCY, WARM_UP_MAX_REQUESTS } from './warm-up-plan';

export interface GatewayWarmedUp {
  readonly ms: number;
  readonly requests: number;
}

/**
 * A one-page PDF of about 8 KB: the gateway only sniffs its type, stores it and, the stand-in signer
 * naming it as the signed PDF, reads it back to answer.
 */
const REHEARSAL_PDF = Buffer.from(
  [
    '%PDF-1.7',
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>> endobj',
    ...Array.from(
      { length: 120 },
      (_, i) => `% rehearsal line ${String(i).padStart(3, '0')} ${'-'.repeat(40)}`,
    ),
    'trailer <</Root 1 0 R/Size 4>>',
    '%%EOF',
  ].join('\n'),
);

/** A drawn signature as the dashboard's pad sends one: a PNG (only its signature bytes are checked here). */
const rehearsalPng = (): string =>
  `data:image/png;base64,${Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    randomBytes(3000),
  ]).toString('base64')}`;

/** The two forms POST /api/v1/sign is sent most: a drawn signature at positions, a typed one at x/y. */
const rehearsalForms = (): { body: Buffer; contentType: string }[] => {
  const forms: Record<string, string>[] = [
    {
      signerName: 'Warm Up',
      signerEmail: 'warm-up@example.com',
      signatureData: rehearsalPng(),
      positions: JSON.stringify([{ x: 50, y: 85, page: 0, width: 25 }]),
    },
    {
      signerName: 'Warm Up',
      signerEmail: 'warm-up@example.com',
      mode: 'type',
      typedName: 'Warm Up',
      x: '60',
      y: '80',
      page: '0',
      width: '30',
    },
  ];
  return forms.map((fields) => {
    const boundary = `----rehearsal${randomUUID()}`;
    const parts = Object.entries(fields).map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    return {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.concat([
        Buffer.from(parts.join('')),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="warm-up.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
        ),
        REHEARSAL_PDF,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    };
  });
};

const notRehearsed = (what: string) => (): Promise<never> =>
  Promise.reject(new Error(`${what} is not part of the gateway's rehearsal`));

/**
 * Object storage as the rehearsal uses it: the real store (its client's upload and download streams
 * are on the path being warmed), every object the rehearsal wrote (uploads, under `uploads/`, which
 * expire by themselves anyway) removed when it ends.
 */
const trackedBlob = (real: BlobStore): { blob: BlobStore; removeWritten(): Promise<void> } => {
  const written = new Set<string>();
  return {
    blob: {
      ...real,
      put: (key, body, putOptions) => {
        written.add(key);
        return real.put(key, body, putOptions);
      },
    },
    removeWritten: async () => {
      for (const key of written) await real.remove(key).catch(() => undefined);
    },
  };
};

const noIdempotency: IdempotencyStore = { once: notRehearsed('Idempotency-Key replay') };

const auditIdPart = () => randomBytes(2).toString('hex').toUpperCase();

/**
 * Rehearse POST /api/v1/sign before the gateway serves: the real app (routes, validation, the
 * multipart parser, authentication, rate counting, the upload to object storage, the sign workflow,
 * the answer streamed back from storage) on a loopback port of its own, sent real HTTP requests for
 * up to `WARM_UP_MS` (at most `WARM_UP_MAX_REQUESTS`, at least one), with a Business and a Pro key in
 * turn (the quota's reservation is on the path of the second). Its bus has a prefix of its own, where
 * stand-ins of the key service, the signer and document-store answer at once: no service receives a
 * message. Its uploads are removed when it ends. Its own key cache, rate counter, a logger that
 * writes nowhere and instruments that record nowhere; tracing ignores its requests (their rehearsal
 * header) and everything under them is untraced. A failure is logged, not fatal.
 */
export const warmUpGateway = async (options: {
  config: TGatewayConfig;
  blob: BlobStore;
  logger: Logger;
}): Promise<GatewayWarmedUp | undefined> => {
  const { config, logger } = options;
  const started = performance.now();
  let bus: Bus | undefined;
  let server: Server | undefined;
  let storage: ReturnType<typeof trackedBlob> | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: WARM_UP_CONCURRENCY });
  try {
    // Built in the untraced context: the connection's callbacks (the stand-ins' handling) inherit it.
    const rehearsalBus = await untraced(() =>
      connectBus({
        ...busOptionsFrom(config),
        // Outside every stack's subjects (whatever BUS_PREFIX is): nothing of a stack can hear it.
        prefix: `_warm-up.${randomUUID()}.`,
        name: 'gateway-warm-up',
        logger,
      }),
    );
    bus = rehearsalBus;
    const plans: TPlan[] = ['business', 'pro'];
    const accounts = plans.map((plan) => ({
      plan,
      accountId: randomUUID(),
      key: `${LIVE_KEY_PREFIX}warmup${randomBytes(16).toString('hex')}`,
    }));
    const byKey = new Map(accounts.map((account) => [sha256Hex(account.key), account]));
    const signed = REHEARSAL_PDF;
    storage = trackedBlob(options.blob);
    const fileHash = `sha256:${createHash('sha256').update(signed).digest('hex')}`;
    await rehearsalBus.serve([
      endpoint(KeyVerify, ({ keyHash }) => {
        const account = byKey.get(keyHash);
        if (!account) return Promise.reject(new ServiceError('unauthenticated', 'not a rehearsal key'));
        return Promise.resolve({
          accountId: account.accountId,
          keyId: randomUUID(),
          email: 'warm-up@example.com',
          plan: account.plan,
          apiAccess: true,
        });
      }),
      endpoint(DocumentQuotaReserve, () =>
        Promise.resolve({
          reservationId: randomUUID(),
          month: new Date().toISOString().slice(0, 7),
          used: 1,
          limit: 500,
        }),
      ),
      endpoint(PdfSign, (req) => {
        const auditId = `WARM-${auditIdPart()}-${auditIdPart()}-${auditIdPart()}`;
        return Promise.resolve({
          auditId,
          signedAt: new Date().toISOString(),
          // The upload itself stands in for the signed PDF: the gateway reads it back from storage.
          signedKey: req.uploadKey,
          signedFileName: signedFileNameFor(req.fileName),
          fileHash,
          originalHash: fileHash,
          size: signed.length,
          pageCount: 1,
          events: [],
        });
      }),
      endpoint(DocumentRecord, () => Promise.resolve({ id: randomUUID() })),
    ]);
    const app = createApp(
      composeDeps({
        // Its own rate counter, never at the limit: the rehearsal is one client sending many requests.
        config: { ...config, RATE_LIMIT_PER_MINUTE: Number.MAX_SAFE_INTEGER },
        bus: rehearsalBus,
        blob: storage.blob,
        logger: createLogger({ service: 'gateway', level: config.LOG_LEVEL, write: () => undefined }),
        metrics: createEdgeMetrics(unrecordedInstruments()),
        keyCache: createKeyCache({ ttlMs: 60_000 }),
        rateCounter: createRateCounter({ windowMs: 60_000 }),
        idempotency: noIdempotency,
      }),
    );
    const listening = createServer((req, res) => {
      untraced(() => {
        app(req, res);
      });
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const { port } = listening.address() as AddressInfo;
    const forms = rehearsalForms();
    const token = rehearsalToken();
    const post = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const form = forms[n % forms.length] ?? forms[0];
        const account = accounts[Math.floor(n / forms.length) % accounts.length] ?? accounts[0];
        if (!form || !account) throw new Error('no rehearsal form or key');
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v1/sign',
            method: 'POST',
            agent,
            headers: {
              Authorization: `Bearer ${account.key}`,
              'Content-Type': form.contentType,
              'Content-Length': form.body.length,
              'User-Agent': 'esign-gateway-warm-up',
              [REHEARSAL_HEADER]: token,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              res.statusCode === 200
                ? resolve()
                : reject(
                    new Error(
                      `POST /api/v1/sign answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`,
                    ),
                  ),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(form.body);
      });
    const deadline = started + config.WARM_UP_MS;
    let sent = 0;
    await untraced(() =>
      Promise.all(
        Array.from({ length: WARM_UP_CONCURRENCY }, async () => {
          while (sent < WARM_UP_MAX_REQUESTS && (sent === 0 || performance.now() < deadline)) {
            const n = sent;
            sent += 1;
            await post(n);
          }
        }),
      ),
    );
    const warmed = { ms: Math.round(performance.now() - started), requests: sent };
    logger.info('gateway warmed up', warmed);
    return warmed;
  } catch (err) {
    logger.warn('gateway warm-up failed', { err });
    return undefined;
  } finally {
    agent.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await bus?.drain().catch(() => undefined);
    await storage?.removeWritten();
  }
};

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { loadConfig, ZBaseEnv, ZBlobEnv } from '@esign/config';
import type { SigningMaterial } from './domain/cms/load-signing-identity';
import type { TimestampSettings } from './domain/ltv/request-timestamp';
import type { RevocationSettings } from './domain/ltv/revocation';
import {
  DEFAULT_WORKER_HEAP_MB,
  HEAP_GROWING_PERCENT,
  WORKER_YOUNG_GENERATION_MB,
} from './workers/worker-limits';
import { MAIN_THREAD_WARM_UP_SIGNINGS, WARM_UP_MAX_SIGNINGS, type SignWarmUp } from './workers/warm-up-plan';

/** Environment of the pdf-signer service. */
export const ZPdfSignerEnv = ZBaseEnv.extend(ZBlobEnv.shape)
  .extend({
    SIGNING_KEY_PEM: z
      .string()
      .optional()
      .describe('PEM private key (RSA or EC) that seals signed PDFs. Or SIGNING_KEY_FILE.'),
    SIGNING_CERT_PEM: z
      .string()
      .optional()
      .describe('PEM certificate of that key, optionally followed by its chain. Or SIGNING_CERT_FILE.'),
    SIGNING_KEY_FILE: z
      .string()
      .optional()
      .describe('Path of a file holding the PEM private key (instead of SIGNING_KEY_PEM).'),
    SIGNING_CERT_FILE: z
      .string()
      .optional()
      .describe('Path of a file holding the PEM certificate and chain (instead of SIGNING_CERT_PEM).'),
    SIGNING_KEY_PASSPHRASE: z.string().optional().describe('Passphrase of an encrypted PEM key.'),
    MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(25 * 1024 * 1024)
      .describe('Largest upload the signer accepts (the gateway enforces the same limit first).'),
    MAX_CONCURRENT_SIGNS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(8)
      .describe(
        'Documents one process handles at once (pdf.sign and pdf.inspect, each holding its file in memory); more wait their turn (as small messages, not files). Most of a timestamped signing is spent waiting for its TSA token, holding no worker (SIGN_JOBS_PER_WORKER): 8 in flight keep 2 workers busy through a TSA round trip of ~100 ms; more help a slower TSA, at the cost of memory (each may hold a file of up to MAX_FILE_BYTES).',
      ),
    SIGN_WORKERS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'Signing worker threads, started once at start-up. Default: the number of CPUs, at most 2. Never more than MAX_CONCURRENT_SIGNS.',
      ),
    SIGN_JOBS_PER_WORKER: z.coerce
      .number()
      .int()
      .min(1)
      .max(256)
      .default(16)
      .describe(
        'Most documents one signing worker holds at once. A worker computes one at a time; it takes another only while all of its documents wait on the network for their TSA token (and only small ones: together at most an eighth of SIGN_WORKER_HEAP_MB), so that a TSA round trip costs latency, not throughput. 1: one document per worker, waiting included.',
      ),
    SIGN_JOB_BUDGET_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(30_000)
      .describe(
        "Longest one document may take on its worker (ms), well below the gateway's SIGN_TIMEOUT_MS (60 s): past it the worker is ended and replaced and the request answers invalid_argument.",
      ),
    SIGN_SPILL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(50)
      .describe(
        'How long a document waits for the warmest signing worker while it is busy with a document that began less than this many ms ago, before a colder idle worker takes it (ms). Short documents then stay on one worker, which costs less CPU each than spreading them; none waits behind a long one more than this. 0: any idle worker at once.',
      ),
    SIGN_WARM_UP_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(3000)
      .describe(
        `How long each signing worker signs synthetic one-page documents of its own before it takes jobs (ms; at most ${WARM_UP_MAX_SIGNINGS} signings, at least one), at start-up and when it replaces a worker that ended; then, at start-up, the main thread sends such documents through the pool for as long again (at most ${MAIN_THREAD_WARM_UP_SIGNINGS}), each with a read of an upload that does not exist. Only then does the service subscribe to its subjects and answer /readyz, so that the first requests do not pay for V8 optimising the signing code. A drawn and a typed signature, at PADES_LEVEL (B-LTA as B-LT), no TSA asked, nothing stored, sent or counted in metrics. 0: none.`,
      ),
    PUBLIC_BASE_URL: z
      .url()
      .regex(/^https?:\/\//, 'an http(s) URL')
      .default('http://localhost:8080')
      .transform((url) => url.replace(/\/+$/, ''))
      .describe(
        "The service's public address (the gateway's, as people reach it): every audit page prints `<PUBLIC_BASE_URL>/verify/<auditId>` and a QR code of it. Unset: http://localhost:8080.",
      ),
    PADES_LEVEL: z
      .enum(['B-T', 'B-LT', 'B-LTA'])
      .default('B-LT')
      .describe(
        'PAdES baseline level of every seal: `B-T` (signature + RFC 3161 timestamp) or `B-LT` (the same, then a DSS with the certificates of the signing chain and of the timestamp, in an incremental update) or `B-LTA` (then a document timestamp over the whole file, one more TSA request per signing; needs TSA_URLS).',
      ),
    VERIFY_JOB_BUDGET_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(10_000)
      .describe(
        "Longest the check of one uploaded file's signatures may take (ms), on the verification worker; past it the worker is replaced and the request answers 400.",
      ),
    SHUTDOWN_GRACE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(600_000)
      .default(40_000)
      .describe(
        "On SIGTERM, how long the signer may take to finish what it holds: longer than one job's budget, so that a document being signed is finished, not cut (the shared default is 20 s).",
      ),
    SIGN_WORKER_HEAP_MB: z.coerce
      .number()
      .int()
      .min(64)
      .max(16_384)
      .default(DEFAULT_WORKER_HEAP_MB)
      .describe(
        'V8 heap limit of each signing worker, in MB (past it: the worker is replaced, the request refused).',
      ),
    SIGN_WORKER_YOUNG_MB: z.coerce
      .number()
      .int()
      .min(0)
      .max(1024)
      .default(WORKER_YOUNG_GENERATION_MB)
      .describe(
        "V8 young generation of each signing and verification worker, in MB (0: V8 sizes it from the machine's or the container's memory). Why it is set: services/pdf-signer/src/workers/worker-limits.ts.",
      ),
    SIGN_HEAP_GROWING_PERCENT: z.coerce
      .number()
      .int()
      .min(0)
      .max(400)
      .default(HEAP_GROWING_PERCENT)
      .describe(
        "How far past its live size each heap of the signer (its workers' above all) may grow after a full garbage collection, in percent (100: twice; 0: V8's own factor, about 1.3-1.4 next to SIGN_WORKER_HEAP_MB's 256). Does not raise SIGN_WORKER_HEAP_MB. Why it is set: services/pdf-signer/src/workers/worker-limits.ts.",
      ),
    TSA_URLS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((url) => url.trim())
          .filter((url) => url !== ''),
      )
      .pipe(
        z.array(
          z
            .string()
            .url()
            .regex(/^https?:\/\//, 'an http(s) URL'),
        ),
      )
      .describe(
        'RFC 3161 time-stamping authorities, comma-separated, tried in order for every signature (PAdES B-T). Empty: signatures carry no timestamp, for tests of other things only (a warning at start-up); refused when NODE_ENV=production. `pnpm dev` and the test stacks run a local TSA.',
      ),
    TSA_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe(
        'Longest one TSA may take to answer (ms) before the next is tried; TSA_TIMEOUT_MS × the number of TSA_URLS must stay below half of SIGN_JOB_BUDGET_MS.',
      ),
    TSA_TOKEN_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(65_536)
      .default(12_288)
      .describe(
        'Largest timestamp token accepted; the signature placeholder reserves this much room for it.',
      ),
    REVOCATION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(3_000)
      .describe(
        'Longest one OCSP responder or CRL server may take to answer (ms). Revocation data is fetched at start-up and refreshed in the background, never while a document is signed.',
      ),
    REVOCATION_REFRESH_MS: z.coerce
      .number()
      .int()
      .min(10_000)
      .max(86_400_000)
      .default(3_600_000)
      .describe('How often revocation data without a nextUpdate is fetched again (ms); with one, before it.'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.TSA_URLS.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['TSA_URLS'],
        message: 'required in production: every signature carries an RFC 3161 timestamp',
      });
    }
    // Every TSA may use its whole timeout, and the signing itself needs time too.
    if (env.TSA_URLS.length * env.TSA_TIMEOUT_MS >= env.SIGN_JOB_BUDGET_MS / 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['TSA_TIMEOUT_MS'],
        message: 'TSA_TIMEOUT_MS × the number of TSA_URLS must stay below half of SIGN_JOB_BUDGET_MS',
      });
    }
    if (env.PADES_LEVEL === 'B-LTA' && env.TSA_URLS.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['PADES_LEVEL'],
        message: 'B-LTA adds a document timestamp: it needs TSA_URLS',
      });
    }
    if (env.SHUTDOWN_GRACE_MS <= env.SIGN_JOB_BUDGET_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['SHUTDOWN_GRACE_MS'],
        message:
          'must be longer than SIGN_JOB_BUDGET_MS: a document being signed at SIGTERM is finished first',
      });
    }
    const key = env.SIGNING_KEY_PEM ?? env.SIGNING_KEY_FILE;
    const cert = env.SIGNING_CERT_PEM ?? env.SIGNING_CERT_FILE;
    if ((key === undefined) !== (cert === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [key === undefined ? 'SIGNING_KEY_PEM' : 'SIGNING_CERT_PEM'],
        message:
          'set a signing key and its certificate together (SIGNING_KEY_PEM/_FILE and SIGNING_CERT_PEM/_FILE)',
      });
    }
    if (env.SIGNING_KEY_PEM && env.SIGNING_KEY_FILE) {
      ctx.addIssue({
        code: 'custom',
        path: ['SIGNING_KEY_FILE'],
        message: 'set SIGNING_KEY_PEM or SIGNING_KEY_FILE, not both',
      });
    }
    if (env.SIGNING_CERT_PEM && env.SIGNING_CERT_FILE) {
      ctx.addIssue({
        code: 'custom',
        path: ['SIGNING_CERT_FILE'],
        message: 'set SIGNING_CERT_PEM or SIGNING_CERT_FILE, not both',
      });
    }
  });
export type TPdfSignerEnv = z.infer<typeof ZPdfSignerEnv>;

/** Signing worker threads: SIGN_WORKERS or the number of CPUs (at most 2), at most MAX_CONCURRENT_SIGNS. */
export const signWorkerCount = (config: TPdfSignerEnv): number =>
  Math.min(config.SIGN_WORKERS ?? Math.min(availableParallelism(), 2), config.MAX_CONCURRENT_SIGNS);

/** Parse the environment once, at start-up. */
export const loadPdfSignerConfig = (env: NodeJS.ProcessEnv = process.env): TPdfSignerEnv =>
  loadConfig(ZPdfSignerEnv, env);

// PEM passed through an environment file often arrives with its line breaks written as "\n".
const unescapePem = (pem: string | undefined): string | undefined =>
  pem && !pem.includes('\n') && pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem;

/** The configured signing key and certificate (PEM text or files), or undefined for the development one. */
export const readSigningMaterial = (config: TPdfSignerEnv): SigningMaterial | undefined => {
  const keyPem = unescapePem(
    config.SIGNING_KEY_PEM ?? (config.SIGNING_KEY_FILE && readFileSync(config.SIGNING_KEY_FILE, 'utf8')),
  );
  const certPem = unescapePem(
    config.SIGNING_CERT_PEM ?? (config.SIGNING_CERT_FILE && readFileSync(config.SIGNING_CERT_FILE, 'utf8')),
  );
  if (!keyPem || !certPem) return undefined;
  return { keyPem, certPem, keyPassphrase: config.SIGNING_KEY_PASSPHRASE };
};

/** The TSAs from the configuration; undefined when time-stamping is off (TSA_URLS empty). */
export const timestampSettings = (config: TPdfSignerEnv): TimestampSettings | undefined =>
  config.TSA_URLS.length === 0
    ? undefined
    : { urls: config.TSA_URLS, timeoutMs: config.TSA_TIMEOUT_MS, maxTokenBytes: config.TSA_TOKEN_MAX_BYTES };

/** What each signing worker signs for itself before it takes jobs (undefined: nothing). */
export const warmUpSettings = (config: TPdfSignerEnv): SignWarmUp | undefined =>
  config.SIGN_WARM_UP_MS === 0
    ? undefined
    : {
        budgetMs: config.SIGN_WARM_UP_MS,
        maxSignings: WARM_UP_MAX_SIGNINGS,
        padesLevel: config.PADES_LEVEL,
        verifyBaseUrl: config.PUBLIC_BASE_URL,
      };

/** How revocation data (OCSP/CRL) of the signing chain and the TSA's certificates is fetched. */
export const revocationSettings = (config: TPdfSignerEnv): RevocationSettings => ({
  timeoutMs: config.REVOCATION_TIMEOUT_MS,
  refreshMs: config.REVOCATION_REFRESH_MS,
});

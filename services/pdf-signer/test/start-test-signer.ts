import { randomUUID } from 'node:crypto';
import { createBlobStore } from '@esign/blob';
import type { BlobStore } from '@esign/blob';
import { connectBus } from '@esign/bus';
import type { Bus } from '@esign/bus';
import { PdfInspect, PdfSign, PdfVerify, ServiceError } from '@esign/contracts';
import type {
  TDocumentKind,
  TPdfVerifyReply,
  TPosition,
  TSignPdfReply,
  TSignPdfRequest,
  TSignature,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { makePng, startTestS3, testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import { startPdfSigner, ZPdfSignerEnv } from '../src/index';
import type { PdfSignerService } from '../src/index';

/** What one signing sends, all optional. */
export interface SignOptions {
  kind?: TDocumentKind;
  fileName?: string;
  signature?: TSignature;
  positions?: TPosition[];
  signer?: TSignPdfRequest['signer'];
}

/** A pdf-signer on real NATS and the embedded S3 server, with a client that signs through it. */
export interface TestSigner {
  readonly service: PdfSignerService;
  readonly blob: BlobStore;
  /** A bus client on the signer's prefix, for requests the helpers below do not wrap. */
  readonly client: Bus;
  /** Upload `bytes`, call pdf.sign over NATS, fetch the signed PDF. */
  sign(bytes: Buffer, options?: SignOptions): Promise<{ reply: TSignPdfReply; signed: Buffer }>;
  /** The ServiceError a signing fails with. */
  signError(bytes: Buffer, options?: SignOptions): Promise<ServiceError>;
  /** Upload `bytes` and call pdf.inspect: the page count, or the ServiceError it fails with. */
  inspect(bytes: Buffer): Promise<{ pageCount: number } | ServiceError>;
  /** Upload `bytes` and call pdf.verify (on the verification worker): its report. */
  verify(bytes: Buffer): Promise<TPdfVerifyReply>;
  stop(): Promise<void>;
}

export const DEFAULT_SIGNER: TSignPdfRequest['signer'] = {
  name: 'Jane Doe',
  email: 'jane.doe@example.com',
  ipAddress: '203.0.113.42',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1.0',
};

/**
 * Start a signer with `env` on top of the test infrastructure's settings (a short warm-up:
 * SIGN_WARM_UP_MS 100, unless `env` says otherwise). `write` receives the service's log lines (JSON).
 */
export const startTestSigner = async (
  env: Record<string, string> = {},
  options: { write?: (line: string) => void } = {},
): Promise<TestSigner> => {
  const quiet = createLogger({ service: 'pdf-signer-test', level: 'error', write: () => undefined });
  const logger = options.write
    ? createLogger({ service: 'pdf-signer', level: 'info', write: options.write })
    : quiet;
  const s3 = await startTestS3();
  const prefix = uniqueBusPrefix('pdfsig');
  const bucket = 'pdf-signer-test';
  const config = ZPdfSignerEnv.parse({
    NATS_URL: await testNatsUrl(),
    BUS_PREFIX: prefix,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_REGION: s3.region,
    S3_BUCKET: bucket,
    LOG_LEVEL: 'error',
    SIGN_WARM_UP_MS: '100',
    ...env,
  });
  const service = await startPdfSigner(config, { logger });
  const client: Bus = await connectBus({
    url: config.NATS_URL,
    name: 'pdf-signer-test',
    prefix,
    logger: quiet,
    timeoutMs: 60_000,
  });
  const blob = createBlobStore({
    endpoint: s3.endpoint,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    bucket,
    region: s3.region,
  });
  const png = await makePng({ width: 600, height: 200, color: '#1e3a8a' });
  const accountId = randomUUID();
  const sign = async (bytes: Buffer, options: SignOptions = {}) => {
    const uploadKey = `uploads/${randomUUID()}`;
    await blob.put(uploadKey, bytes);
    const reply = await client.request(PdfSign, {
      accountId,
      uploadKey,
      fileName: options.fileName ?? 'contract.pdf',
      kind: options.kind ?? 'pdf',
      signature: options.signature ?? { mode: 'draw', imageBase64: png.toString('base64') },
      positions: options.positions ?? [{ x: 50, y: 85, page: 0, width: 25 }],
      signer: options.signer ?? DEFAULT_SIGNER,
      receivedAt: new Date().toISOString(),
    });
    return { reply, signed: await blob.getBuffer(reply.signedKey) };
  };
  return {
    service,
    blob,
    client,
    sign,
    async signError(bytes, options) {
      try {
        await sign(bytes, options);
      } catch (err) {
        if (err instanceof ServiceError) return err;
        throw err;
      }
      throw new Error('expected pdf.sign to fail');
    },
    async inspect(bytes) {
      const uploadKey = `uploads/${randomUUID()}`;
      await blob.put(uploadKey, bytes);
      return client.request(PdfInspect, { uploadKey }).catch((err: unknown) => {
        if (err instanceof ServiceError) return err;
        throw err;
      });
    },
    async verify(bytes) {
      const uploadKey = `uploads/${randomUUID()}`;
      await blob.put(uploadKey, bytes);
      return client.request(PdfVerify, { uploadKey });
    },
    async stop() {
      await client.drain();
      await service.stop();
      await s3.stop();
    },
  };
};

import { fileURLToPath } from 'node:url';
import { blobOptionsFrom, createBlobStore, createPresigner } from '@esign/blob';
import {
  busOptionsFrom,
  busResource,
  countParkedEvents,
  isUnavailable,
  observeConsumerLag,
  type ConsumeOptions,
} from '@esign/bus';
import {
  AccountUsageGet,
  EnvelopeAttachLink,
  EnvelopeCanceled,
  EnvelopeCodeRequested,
  EnvelopeCompleted,
  EnvelopeDeclined,
  EnvelopeExpired,
  EnvelopeSetCode,
  EnvelopeRecipientTurn,
  SignInLinkRequested,
  SignInTokenIssue,
  SigningAttachLink,
  SigningCanceled,
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningReminderDue,
  SigningRequested,
  WebhookEndpointDisabled,
} from '@esign/contracts';
import { isDatabaseDown, migratedDatabase } from '@esign/db';
import {
  createLogger,
  healthServer,
  startService,
  type Logger,
  type Resource,
  metricsResource,
} from '@esign/telemetry';
import { createMailMetrics } from './adapters/mail-metrics';
import { createSmtpTransport, type MailTransport } from './adapters/smtp-transport';
import type { TMailerConfig } from './config';
import { createDeliveryRepository } from './db/delivery-repository';
import { schema } from './db/schema';
import type { SignedPdfStore } from './domain/signed-copy';
import { envelopeCanceledHandler } from './handlers/envelope-canceled';
import { envelopeCodeRequestedHandler } from './handlers/envelope-code-requested';
import { envelopeCompletedHandler } from './handlers/envelope-completed';
import { envelopeDeclinedHandler } from './handlers/envelope-declined';
import { envelopeExpiredHandler } from './handlers/envelope-expired';
import { envelopeRecipientTurnHandler } from './handlers/envelope-recipient-turn';
import { signInLinkRequestedHandler } from './handlers/sign-in-link-requested';
import { signingCanceledHandler } from './handlers/signing-canceled';
import { signingCompletedHandler } from './handlers/signing-completed';
import { signingDeclinedHandler } from './handlers/signing-declined';
import { signingExpiredHandler } from './handlers/signing-expired';
import { signingReminderDueHandler } from './handlers/signing-reminder-due';
import { signingRequestedHandler } from './handlers/signing-requested';
import { accountEmailVia, webhookEndpointDisabledHandler } from './handlers/webhook-endpoint-disabled';

/** A running mailer. */
export interface MailerService {
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** Stop pulling events, finish the emails in flight, close connections. */
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/**
 * Migrate the `mailer` schema, connect to NATS, and consume the signing and envelope events with one
 * durable consumer each (`mailer-<event>`; replicas share them), sending email over SMTP.
 */
export const startMailerService = (
  config: TMailerConfig,
  options: { logger?: Logger; now?: () => Date } = {},
): Promise<MailerService> => {
  const logger = options.logger ?? createLogger({ service: 'mailer', level: config.LOG_LEVEL });
  const now = options.now ?? (() => new Date());
  return startService(async (use, ready) => {
    const metrics = await use(metricsResource({ service: 'mailer', exporter: config.METRICS_EXPORTER }));
    const database = await use(
      migratedDatabase({
        url: config.DATABASE_URL,
        schema,
        max: config.DB_POOL_MAX,
        applicationName: 'mailer',
        logger,
        schemaName: 'mailer',
        migrationsFolder: MIGRATIONS_FOLDER,
      }),
    );
    // Before the bus: the emails in flight when it drains still need it.
    const transport = await use(smtpTransport(config));
    const bus = await use(
      busResource({
        ...busOptionsFrom(config),
        name: 'mailer',
        logger,
        onParked: countParkedEvents(metrics),
      }),
    );
    const blobOptions = blobOptionsFrom(config);
    const blob = createBlobStore(blobOptions);
    const presign = createPresigner({
      ...blobOptions,
      endpoint: config.S3_PUBLIC_ENDPOINT ?? blobOptions.endpoint,
    });
    const pdfs: SignedPdfStore = {
      read: (key, maxBytes) => blob.getBuffer(key, { maxBytes }),
      downloadUrl: (key, fileName, ttlSeconds) =>
        presign('GET', blob.bucket, key, ttlSeconds, {
          'response-content-type': 'application/pdf',
          'response-content-disposition': `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
        }),
    };
    const deps = {
      deliveries: createDeliveryRepository(database.db),
      transport,
      logger,
      outcomes: createMailMetrics({ metrics, maxDeliveries: config.MAIL_MAX_DELIVERIES }),
    };
    const links = {
      attachLink: (request: Parameters<typeof bus.request<typeof SigningAttachLink>>[1]) =>
        bus.request(SigningAttachLink, request),
      attachEnvelopeLink: (request: Parameters<typeof bus.request<typeof EnvelopeAttachLink>>[1]) =>
        bus.request(EnvelopeAttachLink, request),
      publicBaseUrl: config.PUBLIC_BASE_URL,
    };
    const completedCopies = {
      pdfs,
      attachmentMaxBytes: config.MAIL_ATTACHMENT_MAX_BYTES,
      downloadTtlSeconds: config.MAIL_DOWNLOAD_LINK_TTL_HOURS * 3600,
      now,
    };
    // Every consumer's lag is reported (observeConsumerLag below).
    const durables: string[] = [];
    const consume = (durable: string): ConsumeOptions => {
      durables.push(durable);
      return {
        durable,
        concurrency: config.MAIL_CONCURRENCY,
        maxDeliveries: config.MAIL_MAX_DELIVERIES,
        retryDelaysMs: config.MAIL_RETRY_DELAYS_MS,
        // An attempt may fetch a 10 MB PDF and push it through SMTP; progress acks extend this.
        ackWaitMs: 60_000,
        // The database away, or a service asked on the way (the document store issuing a signing
        // link) answering `unavailable`: handled again in place once it is back, not minutes later.
        outage: { isOutage: (err) => isDatabaseDown(err) || isUnavailable(err) },
      };
    };
    await bus.consume(
      SigningRequested,
      signingRequestedHandler({ ...deps, ...links }),
      consume('mailer-signing-requested'),
    );
    await bus.consume(
      SigningReminderDue,
      signingReminderDueHandler({ ...deps, ...links, now }),
      consume('mailer-signing-reminder-due'),
    );
    await bus.consume(
      SigningCompleted,
      signingCompletedHandler({ ...deps, ...completedCopies }),
      consume('mailer-signing-completed'),
    );
    await bus.consume(SigningDeclined, signingDeclinedHandler(deps), consume('mailer-signing-declined'));
    await bus.consume(SigningExpired, signingExpiredHandler(deps), consume('mailer-signing-expired'));
    await bus.consume(SigningCanceled, signingCanceledHandler(deps), consume('mailer-signing-canceled'));
    await bus.consume(
      EnvelopeRecipientTurn,
      envelopeRecipientTurnHandler({
        ...deps,
        ...links,
        setEnvelopeCode: (request) => bus.request(EnvelopeSetCode, request),
        now,
      }),
      consume('mailer-envelope-recipient-turn'),
    );
    await bus.consume(
      EnvelopeCompleted,
      envelopeCompletedHandler({ ...deps, ...completedCopies }),
      consume('mailer-envelope-completed'),
    );
    await bus.consume(EnvelopeDeclined, envelopeDeclinedHandler(deps), consume('mailer-envelope-declined'));
    await bus.consume(EnvelopeCanceled, envelopeCanceledHandler(deps), consume('mailer-envelope-canceled'));
    await bus.consume(EnvelopeExpired, envelopeExpiredHandler(deps), consume('mailer-envelope-expired'));
    await bus.consume(
      EnvelopeCodeRequested,
      envelopeCodeRequestedHandler({
        ...deps,
        setEnvelopeCode: (request) => bus.request(EnvelopeSetCode, request),
      }),
      consume('mailer-envelope-code-requested'),
    );
    await bus.consume(
      SignInLinkRequested,
      signInLinkRequestedHandler({
        ...deps,
        issueSignInToken: (email, requestId) => bus.request(SignInTokenIssue, { email, requestId }),
        publicBaseUrl: config.PUBLIC_BASE_URL,
      }),
      consume('mailer-sign-in-link-requested'),
    );
    await bus.consume(
      WebhookEndpointDisabled,
      webhookEndpointDisabledHandler({
        ...deps,
        accountEmail: accountEmailVia((request) => bus.request(AccountUsageGet, request)),
        publicBaseUrl: config.PUBLIC_BASE_URL,
      }),
      consume('mailer-webhook-endpoint-disabled'),
    );
    observeConsumerLag({ bus, metrics, durables });
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    return { healthPort: health.port };
  });
};

/** The SMTP client, closed once the bus has drained. */
const smtpTransport = (config: TMailerConfig): Resource<MailTransport> => ({
  name: 'SMTP',
  start: () =>
    createSmtpTransport({
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      tls: config.SMTP_TLS,
      user: config.SMTP_USER,
      password: config.SMTP_PASSWORD,
      from: config.MAIL_FROM,
    }),
  stop: (transport) => transport.close(),
});

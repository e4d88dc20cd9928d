import { blobOptionsFrom } from '@esign/blob';
import type { TWebhookEndpointDisabledEvent } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import { createDownloadLinks } from '../adapters/download-links';
import type { HttpPoster } from '../adapters/http-poster';
import type { TWebhookConfig } from '../config';
import type { WebhookStore } from '../db/store';
import { announceDisabled } from '../domain/announce-disabled';
import { attemptDelivery, type AttemptDeps } from '../domain/attempt-delivery';
import type { TargetPolicy } from '../domain/check-endpoint-url';
import type { Clock } from '../domain/clock';
import type { DeliveryOutcomes } from '../domain/delivery-outcomes';
import type { SecretBox } from '../domain/secret-box';
import { startDeliveryLoop, type DeliveryLoop } from './delivery-loop';

/** The delivery loop as configured: attempts through `http`, disabled endpoints announced by `publishDisabled`. */
export const startDeliveries = (deps: {
  config: TWebhookConfig;
  store: WebhookStore;
  http: HttpPoster;
  secrets: SecretBox;
  targets: TargetPolicy;
  publishDisabled: (event: TWebhookEndpointDisabledEvent) => Promise<void>;
  outcomes: DeliveryOutcomes;
  logger: Logger;
  now: Clock;
}): DeliveryLoop => {
  const { config, store, logger, now } = deps;
  // Longer than an attempt can take: an attempt still running is never taken twice; what is left of
  // it after the POST is the time its outcome has to be recorded (attempt-delivery's settle).
  const leaseMs = config.WEBHOOK_TIMEOUT_MS + 30_000;
  const attempt: AttemptDeps = {
    store,
    http: deps.http,
    secrets: deps.secrets,
    ...deps.targets,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: config.WEBHOOK_RESPONSE_MAX_BYTES,
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    downloadUrl: createDownloadLinks({
      blob: blobOptionsFrom(config),
      publicEndpoint: config.S3_PUBLIC_ENDPOINT,
      ttlSeconds: config.WEBHOOK_DOWNLOAD_URL_TTL_SECONDS,
      now,
    }),
    onDisabled: (endpoint) =>
      announceDisabled({ logger, now: now(), endpoint, publish: deps.publishDisabled }),
    outcomes: deps.outcomes,
    logger,
    now,
    leaseMs,
  };
  return startDeliveryLoop({
    store,
    now,
    attempt: (claimed) => attemptDelivery(claimed, attempt),
    concurrency: config.WEBHOOK_CONCURRENCY,
    intervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    leaseMs,
    logger,
  });
};

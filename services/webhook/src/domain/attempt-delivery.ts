import type { BlockList } from 'node:net';
import { retryWhileDown } from '@esign/db';
import type { Logger } from '@esign/telemetry';
import type { HttpPoster, PostOutcome } from '../adapters/http-poster';
import type { ClaimedDelivery, EndpointRow, WebhookStore } from '../db/store';
import { nextAttemptAt } from './backoff';
import type { Clock } from './clock';
import type { DeliveryOutcomes } from './delivery-outcomes';
import type { SecretBox } from './secret-box';
import { signWebhook } from './signature';
import { checkTarget, TargetRefusedError, type Lookup } from './ssrf';

/** Event types whose payload carries a download link of the signed PDF. */
const WITH_DOWNLOAD = new Set(['document.signed', 'signing.completed', 'envelope.completed']);
/** Characters of a receiver's answer kept in the delivery log. */
const EXCERPT_CHARS = 1024;
/** Stop trying to record this long before the claim's lease ends (another poll may claim it then). */
const SETTLE_LEASE_MARGIN_MS = 2_000;

/** What an attempt uses; `now` decides its signature's timestamp, its retry time and the streak's length. */
export interface AttemptDeps {
  readonly store: WebhookStore;
  readonly http: HttpPoster;
  readonly secrets: SecretBox;
  readonly allow: BlockList;
  readonly lookup?: Lookup;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly retrySchedule: readonly number[];
  readonly disableAfterMs: number;
  readonly downloadUrl: (objectKey: string) => Promise<{ url: string; expiresAt: string }>;
  readonly onDisabled: (endpoint: EndpointRow) => Promise<void>;
  readonly outcomes: DeliveryOutcomes;
  readonly logger: Logger;
  readonly now: Clock;
  /** How long a claim holds the delivery (the loop's lease): the outcome must be recorded inside it. */
  readonly leaseMs: number;
  /** Waits between tries of recording an outcome (default: a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
}

type Settlement = Parameters<WebhookStore['settle']>[0];

/**
 * Record an attempt's outcome, tried again while the database is away (a restart, a connection ended
 * from the server side) until the claim's lease is nearly spent. Without this, a receiver that had
 * answered 2xx was posted to again (the same webhook-id) whenever the outcome's write met an outage:
 * the chaos audit saw it. Now that happens only when the process dies between the receiver's answer
 * and the record, or the database stays away longer than the lease (`WEBHOOK_TIMEOUT_MS` + 30 s).
 */
export const settleWithinLease = (deps: AttemptDeps, input: Settlement, claimedAt: Date): Promise<boolean> =>
  retryWhileDown(() => deps.store.settle(input), {
    withinMs: claimedAt.getTime() + deps.leaseMs - SETTLE_LEASE_MARGIN_MS - deps.now().getTime(),
    now: () => deps.now().getTime(),
    sleep: deps.sleep,
  });

/** The exact body of one attempt: the stored snapshot, with a fresh download link where it has one. */
export const buildBody = async (
  claimed: ClaimedDelivery,
  downloadUrl: AttemptDeps['downloadUrl'],
): Promise<string> => {
  const { event } = claimed;
  const data = { ...(event.data as Record<string, unknown>) };
  if (WITH_DOWNLOAD.has(event.type)) {
    data.download = event.objectKey ? await downloadUrl(event.objectKey) : null;
  }
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.occurredAt.toISOString(), data });
};

/** The secrets an attempt is signed with: the current one, and the previous one during its overlap. */
export const signingSecrets = (endpoint: EndpointRow, box: SecretBox, now: Date): string[] => {
  const list = [box.open(endpoint.secret, endpoint.id)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    list.push(box.open(endpoint.previousSecret, endpoint.id));
  }
  return list;
};

/** Text of the answer for the log: printable, without NUL (Postgres text cannot hold it). */
const excerptOf = (response: Buffer | null): string | null =>
  response === null || response.length === 0
    ? null
    : response.toString('utf8').replaceAll(String.fromCharCode(0), '').slice(0, EXCERPT_CHARS);

/**
 * One attempt of a claimed delivery: check the URL again (resolved now, connected to the address that
 * was checked), sign and POST, log it, and settle the delivery: succeeded on a 2xx; on anything else
 * (3xx included: redirects are not followed) due again by the retry schedule or failed once it is
 * spent. A 410 disables the endpoint at once; a streak of failures longer than `disableAfterMs` too.
 */
export const attemptDelivery = async (claimed: ClaimedDelivery, deps: AttemptDeps): Promise<void> => {
  const { delivery, endpoint, event } = claimed;
  const attemptedAt = deps.now();
  let outcome: PostOutcome;
  try {
    const { url, addresses } = await checkTarget(endpoint.url, deps.allow, deps.lookup);
    const body = await buildBody(claimed, deps.downloadUrl);
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'esign-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(
        signingSecrets(endpoint, deps.secrets, attemptedAt),
        event.id,
        timestamp,
        body,
      ),
    };
    const address = addresses[0];
    if (!address) throw new TargetRefusedError('url: no address');
    outcome = await deps.http.post({
      url,
      address,
      headers,
      body,
      timeoutMs: deps.timeoutMs,
      maxBytes: deps.maxResponseBytes,
    });
  } catch (err) {
    if (!(err instanceof TargetRefusedError)) throw err;
    outcome = { statusCode: null, latencyMs: 0, response: null, error: `refused: ${err.message}` };
  }
  const status = outcome.statusCode;
  const succeeded = status !== null && status >= 200 && status < 300;
  const error =
    outcome.error ??
    (succeeded
      ? null
      : status !== null && status >= 300 && status < 400
        ? `redirect (${status}) not followed`
        : `HTTP ${status}`);
  const retryAt =
    succeeded || status === 410 ? null : nextAttemptAt(deps.retrySchedule, delivery.attempts, deps.now());
  const recorded = await settleWithinLease(
    deps,
    {
      deliveryId: delivery.id,
      attemptedAt,
      statusCode: status,
      latencyMs: outcome.latencyMs,
      succeeded,
      error,
      responseExcerpt: excerptOf(outcome.response),
      retryAt,
    },
    attemptedAt,
  );
  const log = deps.logger.child({ webhookId: endpoint.id, eventId: event.id, deliveryId: delivery.id });
  if (!recorded) {
    // Deleted by its owner during the attempt: nothing left to record it in or to mark.
    log.info('webhook endpoint deleted during the attempt: its outcome is not recorded', { status });
    return;
  }
  if (succeeded) {
    deps.outcomes.delivered(event.type, event.occurredAt);
    await deps.store.markHealthy(endpoint.id);
    log.info('webhook delivered', { status, attempt: delivery.attempts, latencyMs: outcome.latencyMs });
    return;
  }
  deps.outcomes.failed(event.type, retryAt !== null);
  log.warn('webhook attempt failed', {
    status,
    error,
    attempt: delivery.attempts,
    retryAt: retryAt?.toISOString() ?? null,
  });
  const failingSince = await deps.store.markFailing(endpoint.id, attemptedAt);
  const reason =
    status === 410
      ? 'gone'
      : deps.now().getTime() - failingSince.getTime() >= deps.disableAfterMs
        ? 'failing'
        : undefined;
  if (reason) {
    const disabled = await deps.store.disable(endpoint.id, reason, deps.now());
    if (disabled) {
      deps.outcomes.disabled(reason);
      await deps.onDisabled(disabled);
    }
  }
};

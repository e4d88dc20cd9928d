/**
 * Every metric the services export, in one place: its OpenTelemetry name, kind, unit, the labels it
 * may carry and which services export it. Instruments are created from these entries
 * (`instruments.ts`), the chart's alerts and dashboard are checked against them, and
 * docs/operations.md is generated from them (`pnpm docs:metrics`).
 *
 * Labels are bounded sets on purpose: never an account, key, audit ID, email, IP address, file name
 * or URL path as a label (a test signs for many accounts and counts the series).
 */

export type MetricKind = 'counter' | 'updown' | 'histogram' | 'gauge';

export type ServiceName =
  'gateway' | 'pdf-signer' | 'template' | 'document-store' | 'mailer' | 'key' | 'webhook';

export interface MetricSpec<L extends string = string> {
  /** OpenTelemetry name (semantic conventions where one exists). */
  readonly name: string;
  readonly kind: MetricKind;
  /** UCUM unit: `s`, `By`, or a `{thing}` annotation. */
  readonly unit: string;
  readonly description: string;
  /** The only label keys it may carry, each from a bounded set of values. */
  readonly labels: readonly L[];
  readonly services: readonly ServiceName[] | 'all';
  /** Histogram bucket boundaries, in the metric's unit. */
  readonly buckets?: readonly number[];
}

const spec = <const L extends string, const K extends MetricKind>(
  entry: MetricSpec<L> & { readonly kind: K },
): MetricSpec<L> & { readonly kind: K } => entry;

/** Request and job durations (seconds): 5 ms to 60 s. */
export const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60,
] as const;
/** Delivery lag (seconds): 10 ms to a day. */
export const LAG_BUCKETS = [0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400] as const;
/** Body sizes (bytes): 1 KiB to 100 MiB. */
export const SIZE_BUCKETS = [
  1024, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 10_485_760, 26_214_400, 104_857_600,
] as const;

export const METRICS = {
  // ── The edge (gateway) ───────────────────────────────────────────────────────────────────────────
  httpRequestDuration: spec({
    name: 'http.server.request.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'Duration of HTTP requests, from arrival until the response is written or the client is gone, by route template (`/api/v1/documents/:auditId`, never the raw path; `unmatched` when no route served it; `/web/*` and `/docs/assets/*` for static files), method (`_OTHER` for an unknown one) and status class (`2xx` to `5xx`, or `aborted` when the response was not written whole: the client went away, or a body stream failed). Its count is the request rate; the share of `5xx` the error ratio.',
    labels: ['http.request.method', 'http.route', 'http.response.status_class'],
    services: ['gateway'],
    buckets: DURATION_BUCKETS,
  }),
  httpActiveRequests: spec({
    name: 'http.server.active_requests',
    kind: 'updown',
    unit: '{request}',
    description: 'HTTP requests being served now, by method.',
    labels: ['http.request.method'],
    services: ['gateway'],
  }),
  httpRequestBodySize: spec({
    name: 'http.server.request.body.size',
    kind: 'histogram',
    unit: 'By',
    description:
      'Bytes of request bodies as the gateway read them (the wire bytes, not what Content-Length claims; a body never read, as of a request refused first, counts 0), by route template; the sum is the bytes in.',
    labels: ['http.request.method', 'http.route'],
    services: ['gateway'],
    buckets: SIZE_BUCKETS,
  }),
  httpResponseBodySize: spec({
    name: 'http.server.response.body.size',
    kind: 'histogram',
    unit: 'By',
    description:
      'Bytes written to response bodies (up to where an aborted one stopped; 0 for HEAD, 204 and 304), by route template; the sum is the bytes out.',
    labels: ['http.request.method', 'http.route'],
    services: ['gateway'],
    buckets: SIZE_BUCKETS,
  }),
  httpRefused: spec({
    name: 'esign.http.refused',
    kind: 'counter',
    unit: '{request}',
    description:
      "Requests refused before their work, by route template and `reason`: `rate_limit` (429 of the per-key, per-IP, sandbox or an operation's own limit; the route tells which), `auth_failures` (429: too many failed authentications from one address), `quota` (403: the plan's monthly documents are used up) or `size` (413: a body or file over its limit; 431 under `unmatched`: headers over 16 KB).",
    labels: ['http.route', 'reason'],
    services: ['gateway'],
  }),
  uploadsActive: spec({
    name: 'esign.http.uploads.active',
    kind: 'updown',
    unit: '{upload}',
    description:
      'File uploads streaming to object storage now: from when a multipart file part, its type checked, starts streaming until its upload ends, whether stored, refused for its size or abandoned by the client.',
    labels: [],
    services: ['gateway'],
  }),

  // ── The signer ───────────────────────────────────────────────────────────────────────────────────
  signerWorkers: spec({
    name: 'esign.signer.workers',
    kind: 'gauge',
    unit: '{worker}',
    description:
      'Signing worker threads up and ready (below the configured SIGN_WORKERS while one is being replaced). Verification has a worker of its own, not counted here.',
    labels: [],
    services: ['pdf-signer'],
  }),
  signerJobsActive: spec({
    name: 'esign.signer.jobs.active',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs (signings and inspections) running on a signing worker now.',
    labels: [],
    services: ['pdf-signer'],
  }),
  signerJobsQueued: spec({
    name: 'esign.signer.jobs.queued',
    kind: 'gauge',
    unit: '{job}',
    description: 'Jobs (signings and inspections) waiting for a signing worker now.',
    labels: [],
    services: ['pdf-signer'],
  }),
  signerQueueWait: spec({
    name: 'esign.signer.queue.wait',
    kind: 'histogram',
    unit: 's',
    description:
      'Time a job waited for a signing worker, from its arrival to a worker taking it, by job (`sign`, `inspect`: both share the signing pool): the saturation signal (alert and autoscaling).',
    labels: ['esign.job'],
    services: ['pdf-signer'],
    buckets: DURATION_BUCKETS,
  }),
  signerJobDuration: spec({
    name: 'esign.signer.job.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'Time a job spent on its worker, by job (`sign`, `inspect` on the signing pool; `verify` on the verification worker of its own) and outcome (`ok`; `rejected`: the document was refused; `over_budget`: stopped at its time or memory budget; `error`: a dependency such as the TSA failed, or the worker died).',
    labels: ['esign.job', 'esign.outcome'],
    services: ['pdf-signer'],
    buckets: DURATION_BUCKETS,
  }),
  signerPages: spec({
    name: 'esign.signer.pages',
    kind: 'counter',
    unit: '{page}',
    description: 'Pages of the documents signed (of the signed PDFs: the audit page included).',
    labels: [],
    services: ['pdf-signer'],
  }),
  signerOverBudget: spec({
    name: 'esign.signer.jobs.over_budget',
    kind: 'counter',
    unit: '{job}',
    description:
      'Jobs stopped at a budget, by job and budget (`time`: SIGN_JOB_BUDGET_MS or VERIFY_JOB_BUDGET_MS; `memory`: the worker heap); the worker was ended and replaced.',
    labels: ['esign.job', 'esign.budget'],
    services: ['pdf-signer'],
  }),
  timestampRequestDuration: spec({
    name: 'esign.signer.timestamp.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'Time-stamp requests to a TSA, by provider (the host of a configured TSA_URLS entry) and outcome (`ok`: a usable token; `error`: no answer, an HTTP error, a refusal or an unusable token). A signing that asks the next TSA counts one request per TSA asked.',
    labels: ['esign.provider', 'esign.outcome'],
    services: ['pdf-signer'],
    buckets: DURATION_BUCKETS,
  }),
  revocationRequestDuration: spec({
    name: 'esign.signer.revocation.duration',
    kind: 'histogram',
    unit: 's',
    description:
      'OCSP and CRL fetches for the long-term validation data (at start-up, then in the background before nextUpdate, never while signing; each signing worker keeps its own cache), by kind (`ocsp`, `crl`), provider (the host the certificate names) and outcome (`ok`: an answer that checks out; `error`).',
    labels: ['esign.revocation', 'esign.provider', 'esign.outcome'],
    services: ['pdf-signer'],
    buckets: DURATION_BUCKETS,
  }),
  certificateTimeLeft: spec({
    name: 'esign.signer.certificate.time_left',
    kind: 'gauge',
    unit: 's',
    description:
      'Seconds until a certificate expires: `certificate` is `signing` (the sealing certificate) or `timestamp_authority` (the TSA certificate in the last token received; absent until a signing was timestamped).',
    labels: ['esign.certificate'],
    services: ['pdf-signer'],
  }),
  revocationTimeLeft: spec({
    name: 'esign.signer.revocation.time_left',
    kind: 'gauge',
    unit: 's',
    description:
      'Seconds until the soonest cached revocation answer (OCSP or CRL, over every signing worker) passes its nextUpdate; negative once passed. Absent when none is cached with a nextUpdate.',
    labels: [],
    services: ['pdf-signer'],
  }),

  // ── document-store ───────────────────────────────────────────────────────────────────────────────
  outboxPending: spec({
    name: 'esign.outbox.pending',
    kind: 'gauge',
    unit: '{event}',
    description:
      'Outbox rows not yet published to NATS (counted on the partial index of unpublished rows; one query per scrape, shared with the age).',
    labels: [],
    services: ['document-store'],
  }),
  outboxOldestAge: spec({
    name: 'esign.outbox.oldest.age',
    kind: 'gauge',
    unit: 's',
    description: 'Age of the oldest outbox row not yet published (0 when none).',
    labels: [],
    services: ['document-store'],
  }),
  sweepRuns: spec({
    name: 'esign.sweep.runs',
    kind: 'counter',
    unit: '{run}',
    description:
      'Runs of a periodic sweep, by sweep (`signed_objects`, `signing_requests`, `envelopes`) and outcome (`ok`, `skipped`: another replica held the sweep, `error`).',
    labels: ['esign.sweep', 'esign.outcome'],
    services: ['document-store'],
  }),
  sweepCollected: spec({
    name: 'esign.sweep.collected',
    kind: 'counter',
    unit: '{item}',
    description:
      'What the sweeps collected, by sweep and item: `signed_objects` removes `signed_object` (a signed PDF no record holds); `signing_requests` marks `expired_request`, removes `original` (the PDF of an ended request) and sends `reminder`; `envelopes` marks `expired_envelope`.',
    labels: ['esign.sweep', 'esign.item'],
    services: ['document-store'],
  }),
  signingRequests: spec({
    name: 'esign.signing_requests',
    kind: 'gauge',
    unit: '{request}',
    description:
      'Send-for-signing requests by state (`pending`, `signed`, `declined`, `canceled`, `expired`). `pending` is counted at each scrape on its partial index; the ended states, a scan of the whole table, are counted at most every 5 minutes per replica and reported from that count meanwhile.',
    labels: ['esign.state'],
    services: ['document-store'],
  }),

  // ── mailer and webhook ───────────────────────────────────────────────────────────────────────────
  mailMessages: spec({
    name: 'esign.mail.messages',
    kind: 'counter',
    unit: '{message}',
    description:
      'Emails by kind (`signing-request`, `reminder`, `completed`, `declined`, `expired`, `canceled`, `sign-in-link`, `webhook-disabled`) and outcome: `sent`, `skipped` (no longer to be sent), `duplicate` (already handled), `retried` (failed; the event comes again), `dead_lettered` (failed on its last delivery; the event is parked). Events parked before any email: `esign.bus.consumer.parked`.',
    labels: ['esign.mail', 'esign.outcome'],
    services: ['mailer'],
  }),
  mailDeliveryLag: spec({
    name: 'esign.mail.delivery.lag',
    kind: 'histogram',
    unit: 's',
    description:
      'From the publication of the event that asked for an email (its time in the stream) to the SMTP server accepting it.',
    labels: ['esign.mail'],
    services: ['mailer'],
    buckets: LAG_BUCKETS,
  }),
  webhookDeliveries: spec({
    name: 'esign.webhook.deliveries',
    kind: 'counter',
    unit: '{delivery}',
    description:
      'Webhook delivery attempts by event type (`document.signed`, `signing.viewed`, …, `webhook.test`) and outcome: `delivered` (a 2xx), `retried` (another attempt is scheduled), `dead_lettered` (the retry schedule is spent, or the endpoint answered 410).',
    labels: ['esign.event', 'esign.outcome'],
    services: ['webhook'],
  }),
  webhookDeliveryLag: spec({
    name: 'esign.webhook.delivery.lag',
    kind: 'histogram',
    unit: 's',
    description:
      "From the event's time (its `timestamp` in the payload) to the endpoint's 2xx answer (a replay counts from the original event).",
    labels: ['esign.event'],
    services: ['webhook'],
    buckets: LAG_BUCKETS,
  }),
  webhookEndpointsDisabled: spec({
    name: 'esign.webhook.endpoints.disabled',
    kind: 'counter',
    unit: '{endpoint}',
    description:
      'Endpoints disabled by the delivery loop, by reason: `failing` (failing for longer than WEBHOOK_DISABLE_AFTER_MS) or `gone` (answered 410).',
    labels: ['esign.reason'],
    services: ['webhook'],
  }),
  consumerPending: spec({
    name: 'esign.bus.consumer.pending',
    kind: 'gauge',
    unit: '{message}',
    description:
      'Messages of a durable JetStream consumer not yet delivered (its backlog), by durable name; read from the consumer info at each scrape.',
    labels: ['messaging.consumer.group.name'],
    services: ['mailer', 'webhook', 'key', 'document-store'],
  }),
  consumerAckPending: spec({
    name: 'esign.bus.consumer.ack_pending',
    kind: 'gauge',
    unit: '{message}',
    description:
      'Messages of a durable JetStream consumer delivered and not yet acknowledged (being handled, or waiting out the ack wait).',
    labels: ['messaging.consumer.group.name'],
    services: ['mailer', 'webhook', 'key', 'document-store'],
  }),
  consumerParked: spec({
    name: 'esign.bus.consumer.parked',
    kind: 'counter',
    unit: '{message}',
    description:
      'Messages a durable consumer parked (never delivered to it again; they stay in the stream), by durable and reason: `contract` (fails its contract), `unprocessable`, `exhausted` (its last allowed delivery failed).',
    labels: ['messaging.consumer.group.name', 'esign.reason'],
    services: ['mailer', 'webhook', 'key', 'document-store'],
  }),

  // ── Every process ────────────────────────────────────────────────────────────────────────────────
  processCpuTime: spec({
    name: 'process.cpu.time',
    kind: 'counter',
    unit: 's',
    description: 'CPU seconds used by the process, by `cpu.mode` (`user`, `system`).',
    labels: ['cpu.mode'],
    services: 'all',
  }),
  processMemory: spec({
    name: 'process.memory.usage',
    kind: 'gauge',
    unit: 'By',
    description: 'Resident memory of the process.',
    labels: [],
    services: 'all',
  }),
  eventLoopDelay: spec({
    name: 'nodejs.eventloop.delay.p99',
    kind: 'gauge',
    unit: 's',
    description: "The 99th percentile of the main thread's event-loop delay since the last scrape.",
    labels: [],
    services: 'all',
  }),
} as const;

export type MetricKey = keyof typeof METRICS;
export type LabelsOf<K extends MetricKey> = (typeof METRICS)[K] extends MetricSpec<infer L> ? L : never;

/**
 * The names Prometheus shows for a metric (what PromQL uses): dots become underscores, a counter ends
 * in `_total`, a histogram is its `_bucket`, `_sum` and `_count` series.
 */
export const prometheusNames = (entry: MetricSpec): string[] => {
  const base = entry.name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/_+/g, '_');
  if (entry.kind === 'counter') return [base.endsWith('_total') ? base : `${base}_total`];
  if (entry.kind === 'histogram') return [`${base}_bucket`, `${base}_sum`, `${base}_count`];
  return [base];
};

/** A label key as Prometheus shows it. */
export const prometheusLabel = (label: string): string => label.replace(/[^a-zA-Z0-9_]/g, '_');

/** The entries a service exports. */
export const metricsOf = (service: ServiceName): MetricSpec[] =>
  Object.values(METRICS).filter(
    (entry: MetricSpec) => entry.services === 'all' || entry.services.includes(service),
  );

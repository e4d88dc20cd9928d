/**
 * The chaos harness: a stack on infrastructure of its own (infra.ts), a burst of concurrent signings,
 * a fault injected at a random moment inside it, recovery, then an audit of what clients were told
 * against the document records, the outbox, the objects in storage and the events in JetStream.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import pg from 'pg';
import { createBlobStore } from '@esign/blob';
import { connectBus } from '@esign/bus';
import { EVENTS_STREAM, KeyCreate } from '@esign/contracts';
import { SERVICE_NAMES, startServices, type RunningStack, type ServiceName } from '@esign/stack';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng, startSmtpCapture, uniqueBusPrefix } from '@esign/testing';
import {
  guardedSleep,
  retryWithinBudget,
  runGuarded,
  ScenarioAborted,
  type Guard,
  type RetryBudget,
} from './guards';
import { multipart, post, type Answer } from './client';
import { RECEIVER_NETWORK, startDeliveries, type Deliveries, type DeliveryCounts } from './deliveries';
import { startChaosInfra, type ChaosInfra } from './infra';

/** The gateway's signing timeout in the harness stack (SIGN_TIMEOUT_MS); a client waits this + margin. */
export const SIGN_TIMEOUT_MS = 20_000;
const HANG_MARGIN_MS = 10_000;
/**
 * The sweep of signed objects without a record, shortened so the audit can wait it out, but past the
 * sign timeout as SIGNED_SWEEP_GRACE_MS must be: at 10 s (under SIGN_TIMEOUT_MS) a record held up for
 * 11 s behind a cut-off NATS server committed after the sweep had removed its object (docs/faults.md).
 */
const SWEEP_GRACE_MS = SIGN_TIMEOUT_MS + 5000;
const SWEEP_INTERVAL_MS = 2_000;
/**
 * The audit retries every failed request (up to 10 times, waiting what Retry-After asks, at most 5 s),
 * all within one budget: what is still unresolved when it is spent is reported, not retried.
 */
export const AUDIT_RETRY_BUDGET: RetryBudget = { budgetMs: 60_000, maxAttempts: 10, maxWaitMs: 5_000 };
/**
 * What a scenario takes besides its fault, with room to spare on a busy machine: the stack's start-up,
 * the burst, the recovery probe (at most 60 s), the sweep wait and the key service's count (at most
 * 60 s). Its deadline is this, plus its fault's expected length, plus the audit's retry budget.
 */
const SCENARIO_MARGIN_MS = 240_000;
const DEFAULT_FAULT_MS = 10_000;
/** How long stopping a scenario's stack and infrastructure may take before the run moves on. */
const RELEASE_TIMEOUT_MS = 60_000;

export interface ScenarioContext {
  readonly infra: ChaosInfra;
  readonly stack: RunningStack;
  /** The JetStream stream of the stack's durable events (`<prefix>EVENTS`). */
  readonly streamName: string;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
  /** kill -9 of a process (one of a service's pids). */
  kill9(pid: number): void;
  /** SIGTERM to a process; resolves with the ms until it exited (its drain time). */
  terminate(pid: number): Promise<number>;
  /** Remember this moment under a name, for the scenario's own check. */
  mark(name: string): void;
  /** A figure for the report (drain times and the like). */
  note(text: string): void;
}

/** What the scenario's own check sees: every answer of the burst and the moments it marked. */
export interface CheckInput {
  readonly answers: readonly Answer[];
  readonly marks: ReadonlyMap<string, number>;
  /** 200s per second before the fault and while it lasted. */
  readonly okRate: { readonly before: number; readonly during: number };
}

export interface Scenario {
  readonly name: string;
  readonly embeddedPostgres?: boolean;
  /**
   * Run on a three-server NATS cluster (NATS_URL lists the three, BUS_STREAM_REPLICAS=3) instead of
   * one nats-server: `ctx.infra.natsCluster` is then set.
   */
  readonly natsCluster?: boolean;
  readonly replicas?: Partial<Record<'pdf-signer' | 'document-store' | 'key', number>>;
  /** Pages of the document signed when the load does not say (default 1). */
  readonly pages?: number;
  /** How long the fault lasts, roughly (default 10 s): it counts toward the scenario's deadline. */
  readonly faultMs?: number;
  /**
   * Run every service, not only those on the signing path: template, webhook and the mailer (sending to
   * an SMTP server of the harness's own) besides key, document-store, pdf-signer and gateway, so that
   * their database loops and consumers live through the fault too; and audit their deliveries
   * (deliveries.ts): a webhook endpoint for the signed documents, and sends for signing through the
   * burst, each email and each webhook exactly once.
   */
  readonly allServices?: boolean;
  /**
   * The fault must not cost any service process its life: at the end of the audit every service still
   * runs under the pid it had before the burst (an exit during the scenario fails it at once anyway).
   */
  readonly samePids?: boolean;
  /**
   * For a long fault: the burst's cap on requests (default 4× `requests`, which a fault of a minute
   * would reach before it is lifted) and how long a client waits after a failure (default 200 ms).
   */
  readonly burst?: { readonly maxRequests?: number; readonly failurePauseMs?: number };
  /** Extra environment per service (a loop polling fast, so that a fault always finds it at work). */
  readonly serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Inject the fault and undo it (restart, start again); resolves when the fault is lifted. */
  inject(ctx: ScenarioContext): Promise<void>;
  /** Problems of this scenario's own (beyond the audit every scenario gets). */
  check?(input: CheckInput): string[];
}

export interface LoadOptions {
  /** Requests before the burst may end (it also lasts until the fault is lifted). */
  readonly requests: number;
  readonly concurrency: number;
  /** Upper bound on requests, so that a long outage does not run forever. */
  readonly maxRequests?: number;
  /** Pages of the document signed (default 1): more pages, longer signings, more of them in flight. */
  readonly pages?: number;
  /**
   * The gateway's BUS_TIMEOUT_MS (each bus call but the signing). Default: the service's own (30 s).
   * The chaos test shortens it to keep its run short.
   */
  readonly busTimeoutMs?: number;
  /**
   * The gateway's SIGN_TIMEOUT_MS (default 20 s): what a signing in flight when NATS died waits. Below
   * the document store's sweep grace (10 s here). The CI test shortens it to keep its run short.
   */
  readonly signTimeoutMs?: number;
  /**
   * Longest answer allowed (default the sign timeout + 10 s): a sign request has one deadline for all
   * its bus calls (SIGN_TIMEOUT_MS from the upload, plus a 2 s clean-up after a failure).
   */
  readonly answerBoundMs?: number;
}

/** The harness's guard rails, per run (the defaults suit `pnpm chaos`). */
export interface GuardOptions {
  /** The scenario's overall deadline (default: its fault + the audit budget + 240 s). */
  readonly deadlineMs?: number;
  /** The audit's retries (default AUDIT_RETRY_BUDGET). */
  readonly auditRetry?: RetryBudget;
}

export type { Answer } from './client';

/** A scenario's deadline: its own expected length plus the harness's margin. */
export const scenarioDeadlineMs = (scenario: Scenario, auditRetry: RetryBudget = AUDIT_RETRY_BUDGET) =>
  (scenario.faultMs ?? DEFAULT_FAULT_MS) + auditRetry.budgetMs + SCENARIO_MARGIN_MS;

export interface Report {
  readonly scenario: string;
  readonly requests: number;
  readonly byStatus: Record<string, number>;
  readonly records: number;
  readonly objects: number;
  readonly events: number;
  readonly duplicates: number;
  readonly orphans: number;
  readonly recoveryMs: number | undefined;
  readonly retried: number;
  /** Median and longest answer time of the burst's 200s / of every answer (ms). */
  readonly okP50Ms: number | undefined;
  readonly slowestMs: number;
  /** 200s per second before the fault and while it lasted. */
  readonly okRate: { readonly before: number; readonly during: number };
  /** Sends, emails and webhooks, when the scenario audited them (`allServices`). */
  readonly deliveries?: DeliveryCounts;
  readonly notes: string[];
  readonly problems: string[];
  readonly holds: boolean;
}

/** The report of a scenario that did not get to its audit (a guard rail stopped it, or it failed). */
export const failedReport = (scenario: string, reason: string): Report => ({
  scenario,
  requests: 0,
  byStatus: {},
  records: 0,
  objects: 0,
  events: 0,
  duplicates: 0,
  orphans: 0,
  recoveryMs: undefined,
  retried: 0,
  okP50Ms: undefined,
  slowestMs: 0,
  okRate: { before: 0, during: 0 },
  notes: [],
  problems: [reason],
  holds: false,
});

/** What a scenario started (its stack, its infrastructure), stopped once, last started first. */
export interface Held {
  /** Keep `stop` for the release; if the scenario already ended, stop it now and throw. */
  adopt(stop: () => Promise<void>): Promise<void>;
  release(): Promise<void>;
}

const createHeld = (): Held => {
  let released = false;
  const stops: (() => Promise<void>)[] = [];
  return {
    async adopt(stop) {
      if (released) {
        await stop().catch(() => undefined);
        throw new ScenarioAborted('scenario already ended');
      }
      stops.unshift(stop);
    },
    async release() {
      if (released) return;
      released = true;
      for (const stop of stops) await stop().catch(() => undefined);
    },
  };
};

type ServiceEnv = Partial<Record<ServiceName, Record<string, string>>>;

/** The harness's environment per service, with the scenario's own on top. */
const mergeServiceEnv = (base: ServiceEnv, extra: ServiceEnv): ServiceEnv => {
  const merged: ServiceEnv = { ...base };
  for (const [name, env] of Object.entries(extra) as [ServiceName, Record<string, string>][])
    merged[name] = { ...merged[name], ...env };
  return merged;
};

/** Every service process as `service:pid`, sorted. */
const pidList = (stack: RunningStack): string[] =>
  Object.entries(stack.pids())
    .flatMap(([service, pids]) => (pids ?? []).map((pid) => `${service}:${pid}`))
    .sort();

const countBy = <T>(items: T[], keyOf: (t: T) => string) => {
  const m = new Map<string, number>();
  for (const i of items) m.set(keyOf(i), (m.get(keyOf(i)) ?? 0) + 1);
  return m;
};

/**
 * Run one scenario end to end and audit it, under its deadline and with its service processes
 * watched. Never throws and never waits forever: a scenario stopped by a guard rail (or that could not
 * run) is a failed report whose problem says why.
 */
export const runScenario = async (
  scenario: Scenario,
  load: LoadOptions,
  log: (line: string) => void = () => undefined,
  options: GuardOptions = {},
): Promise<Report> => {
  const auditRetry = options.auditRetry ?? AUDIT_RETRY_BUDGET;
  const deadlineMs = options.deadlineMs ?? scenarioDeadlineMs(scenario, auditRetry);
  return guardScenario(scenario.name, deadlineMs, log, (guard, held) =>
    runAudited(scenario, load, log, guard, held, auditRetry),
  );
};

/**
 * The guard rails around one scenario's body: its deadline, its watched processes, and the release of
 * what it started (stack, infrastructure) however it ended. A body that fails, overruns its deadline
 * or loses a process gives a failed report saying why; nothing here waits on it after that.
 */
export const guardScenario = async (
  name: string,
  deadlineMs: number,
  log: (line: string) => void,
  body: (guard: Guard, held: Held) => Promise<Report>,
): Promise<Report> => {
  const held = createHeld();
  try {
    return await runGuarded(deadlineMs, (guard) => body(guard, held));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    log(`${name}: failed: ${reason}`);
    return failedReport(name, reason);
  } finally {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_TIMEOUT_MS)));
    await Promise.race([held.release(), timedOut]);
    clearTimeout(timer);
  }
};

const runAudited = async (
  scenario: Scenario,
  load: LoadOptions,
  log: (line: string) => void,
  guard: Guard,
  held: Held,
  auditRetry: RetryBudget,
): Promise<Report> => {
  const sleep = (ms: number) => guardedSleep(ms, guard.signal);
  const infra = await startChaosInfra({
    embeddedPostgres: scenario.embeddedPostgres ?? false,
    natsCluster: scenario.natsCluster ?? false,
  });
  await held.adopt(() => infra.stop());
  const busPrefix = uniqueBusPrefix('chaos');
  const streamName = `${busPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}${EVENTS_STREAM}`;
  const problems: string[] = [];
  const serviceExits: string[] = [];
  const smtp = scenario.allServices ? await startSmtpCapture() : undefined;
  if (smtp) await held.adopt(() => smtp.stop());
  const services: ServiceName[] = smtp
    ? [...SERVICE_NAMES, 'mailer']
    : ['key', 'document-store', 'pdf-signer', 'gateway'];
  const stack: RunningStack = await startServices({
    natsUrl: infra.nats.url,
    databaseUrl: infra.postgres.url,
    s3: { ...infra.s3, bucket: 'esign' },
    busPrefix,
    gatewayPort: 0,
    services,
    replicas: scenario.replicas ?? {},
    env: {
      LOG_LEVEL: process.env.CHAOS_LOGS ? 'info' : 'error',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...(infra.natsCluster ? { BUS_STREAM_REPLICAS: String(infra.natsCluster.servers.length) } : {}),
    },
    serviceEnv: mergeServiceEnv(
      {
        gateway: {
          SIGN_TIMEOUT_MS: String(load.signTimeoutMs ?? SIGN_TIMEOUT_MS),
          ...(load.busTimeoutMs ? { BUS_TIMEOUT_MS: String(load.busTimeoutMs) } : {}),
        },
        'document-store': {
          SIGNED_SWEEP_GRACE_MS: String(SWEEP_GRACE_MS),
          SIGNED_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
        },
        ...(smtp
          ? {
              mailer: { SMTP_HOST: smtp.host, SMTP_PORT: String(smtp.port), SMTP_TLS: 'none' },
              webhook: { WEBHOOK_ALLOW_NETWORKS: RECEIVER_NETWORK },
            }
          : {}),
      },
      scenario.serviceEnv ?? {},
    ),
    onLine: (service, line) => {
      guard.line(service, line);
      if (process.env.CHAOS_LOGS) log(`${service} | ${line}`);
      // Errors and worse, whether the level is a number or a name (the services write names).
      if (/"level":(50|60|"error"|"fatal")|unhandled|uncaught/i.test(line))
        serviceExits.push(`${service}: ${line.slice(0, 300)}`);
    },
    // A service process that exits on its own fails the scenario now (killed by it on purpose: no).
    onExit: (exit) => guard.exited(exit),
  });
  await held.adopt(() => stack.stop());
  const running = stack;
  const pidsAtStart = pidList(stack);

  // An account with a Business key, made over the bus as an operator would.
  const bus = await connectBus({
    url: infra.nats.url,
    name: 'chaos',
    prefix: busPrefix,
    logger: createLogger({ service: 'chaos', level: 'error' }),
    timeoutMs: 10_000,
  });
  const { apiKey, accountId } = await bus.request(KeyCreate, {
    email: `chaos${Date.now()}@example.com`,
    plan: 'business',
  });
  const pdf = await makePdf({ pages: load.pages ?? scenario.pages ?? 1 });
  const boundMs = load.answerBoundMs ?? (load.signTimeoutMs ?? SIGN_TIMEOUT_MS) + HANG_MARGIN_MS;
  let deliveries: Deliveries | undefined;
  if (smtp) {
    const started = await startDeliveries({
      bus,
      accountId,
      gatewayUrl: running.gatewayUrl,
      apiKey,
      pdf,
      smtp,
      boundMs,
    });
    await held.adopt(() => started.stop());
    deliveries = started;
  }
  await bus.drain();

  const png = await makePng({ width: 300, height: 100 });
  const form = multipart(pdf, {
    signerName: 'Chaos Signer',
    signerEmail: 'chaos@example.com',
    signatureData: `data:image/png;base64,${png.toString('base64')}`,
    positions: JSON.stringify([{ x: 50, y: 85, page: 0, width: 25 }]),
  });
  const signOnce = (key: string = randomUUID()) => post(running.gatewayUrl, apiKey, form, key, boundMs);

  // Warm up: every process has answered once before the burst.
  for (let i = 0; i < 4; i++) {
    const a = await signOnce();
    if (a.status !== 200) throw new Error(`warm-up answered ${a.status}: ${a.error ?? ''}`);
  }

  // The burst, with the fault injected after a random share (20-50 %) of it has been answered.
  const answers: Answer[] = [];
  const maxRequests = load.maxRequests ?? scenario.burst?.maxRequests ?? load.requests * 4;
  const failurePauseMs = scenario.burst?.failurePauseMs ?? 200;
  const trigger = Math.max(1, Math.floor(load.requests * (0.2 + Math.random() * 0.3)));
  let issued = 0;
  let faultLifted = false;
  let faultStartedAt = 0;
  let liftedAt = 0;
  let recoveryMs: number | undefined;
  let triggerFault: () => void = () => undefined;
  const marks = new Map<string, number>();
  const notes: string[] = [];
  const faultTriggered = new Promise<void>((r) => (triggerFault = r));
  const fault = (async () => {
    await faultTriggered;
    guard.throwIfAborted();
    faultStartedAt = performance.now();
    log(`${scenario.name}: fault at answer ${answers.length}`);
    await scenario.inject({
      infra,
      stack: running,
      streamName,
      sleep,
      // Never once the scenario was aborted: its stack is stopped and the pid may be another's by now.
      kill9: (pid) => {
        guard.throwIfAborted();
        guard.expectExit(pid);
        process.kill(pid, 'SIGKILL');
      },
      terminate: async (pid) => {
        const sent = performance.now();
        guard.throwIfAborted();
        guard.expectExit(pid);
        process.kill(pid, 'SIGTERM');
        for (;;) {
          await sleep(10);
          try {
            process.kill(pid, 0);
          } catch {
            return performance.now() - sent;
          }
          if (performance.now() - sent > 120_000)
            throw new Error(`process ${pid} still running 120 s after SIGTERM`);
        }
      },
      mark: (name) => marks.set(name, performance.now()),
      note: (text) => {
        notes.push(text);
        log(`${scenario.name}: ${text}`);
      },
    });
    liftedAt = performance.now();
    faultLifted = true;
    log(`${scenario.name}: fault lifted after ${((liftedAt - faultStartedAt) / 1000).toFixed(1)} s`);
    // Recovery: from the fault being lifted to the first 200 of a probe started after it.
    const probeDeadline = liftedAt + 60_000;
    while (performance.now() < probeDeadline) {
      guard.throwIfAborted();
      const a = await signOnce();
      answers.push(a);
      if (a.status === 200) {
        recoveryMs = performance.now() - liftedAt;
        break;
      }
      await sleep(250);
    }
  })();
  // Awaited below; if the burst is aborted first, its rejection must not go unhandled meanwhile.
  void fault.catch(() => undefined);
  const burstStarted = performance.now();
  const burstGoesOn = () => (issued < load.requests || !faultLifted) && issued < maxRequests;
  await Promise.all([
    ...Array.from({ length: load.concurrency }, async () => {
      while (burstGoesOn()) {
        guard.throwIfAborted();
        issued += 1;
        const a = await signOnce();
        answers.push(a);
        if (answers.length === trigger) triggerFault();
        // Pace failures a little: a client that hammers a down service learns nothing more.
        if (a.status !== 200) await sleep(failurePauseMs);
      }
    }),
    // One more client sends for signing through the burst, when deliveries are audited.
    deliveries?.sendWhile(burstGoesOn, failurePauseMs, sleep),
  ]);
  triggerFault();
  await fault;
  const burstMs = performance.now() - burstStarted;

  if (recoveryMs === undefined) problems.push('no 200 within 60 s of the fault being lifted');
  const okBetween = (from: number, to: number) =>
    to > from
      ? answers.filter((a) => a.status === 200 && a.endedAt >= from && a.endedAt < to).length /
        ((to - from) / 1000)
      : 0;
  const okRate = {
    before: okBetween(burstStarted, faultStartedAt),
    during: okBetween(faultStartedAt, liftedAt),
  };
  problems.push(...(scenario.check?.({ answers, marks, okRate }) ?? []));

  // Audit phase: retry every failed request with its own Idempotency-Key until it succeeds, within
  // the retry budget (a stack that does not recover must not keep the run for minutes).
  // The sends' retries run beside the signings', on a budget of their own of the same size.
  const sendsRetried = deliveries?.retryFailed(auditRetry, sleep) ?? Promise.resolve([]);
  const { last: retries, unresolved } = await retryWithinBudget(
    answers.filter((a) => a.status !== 200).map((a) => a.key),
    async (key) => {
      guard.throwIfAborted();
      const a = await signOnce(key);
      const wait = Number(a.retryAfter ?? '1');
      return { value: a, done: a.status === 200, waitMs: (Number.isFinite(wait) ? wait : 1) * 1000 };
    },
    auditRetry,
    sleep,
  );
  if (unresolved.length > 0)
    problems.push(
      `${unresolved.length} failed request(s) unresolved: the audit's retry budget of ${auditRetry.budgetMs / 1000} s ran out (first: ${unresolved[0] ?? ''})`,
    );
  const unresolvedSends = await sendsRetried;
  const unresolvedSet = new Set(unresolved);
  // Retry a sample of the 200s too: the same key must answer the same document.
  const replays = answers.filter((a) => a.status === 200).slice(0, 5);
  for (const ok of replays) {
    const again = await signOnce(ok.key);
    if (again.status !== 200 || again.auditId !== ok.auditId)
      problems.push(
        `replay of ${ok.key} answered ${again.status} ${again.auditId ?? ''}, not ${ok.auditId ?? ''}`,
      );
  }

  // Let the outbox drain and the sweep pass the grace period.
  await sleep(SWEEP_GRACE_MS + 2 * SWEEP_INTERVAL_MS + 2000);

  // Source 2: the records and the outbox.
  const db = new pg.Client({ connectionString: infra.postgres.url });
  // An outage now (or the scenario's infrastructure stopped under it) is a failed query, not a crash.
  db.on('error', () => undefined);
  await db.connect();
  const records = (
    await db.query<{
      id: string;
      audit_id: string;
      file_hash: string;
      object_key: string;
      idempotency_key: string | null;
    }>(
      'select id, audit_id, file_hash, object_key, idempotency_key from documents.documents where account_id = $1',
      [accountId],
    )
  ).rows;
  // Every event the document store wrote (signed documents; sends' signing.requested, and so on).
  const allOutbox = (
    await db.query<{ id: string; subject: string; published_at: Date | null; audit_id: string }>(
      "select id, subject, published_at, payload->>'auditId' as audit_id from documents.outbox",
    )
  ).rows;
  const outbox = allOutbox.filter((o) => o.subject === 'events.document.signed');
  await db.end();

  // Source 3: the objects in storage.
  const blob = createBlobStore({ ...infra.s3, bucket: 'esign' });
  const objects = await blob.list('signed/');

  // Source 4: JetStream, every message of the signed event by Nats-Msg-Id.
  const nc = await connect({ servers: infra.nats.url.split(',') });
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(streamName);
  if (infra.natsCluster) {
    const want = infra.natsCluster.servers.length;
    const current = 1 + (info.cluster?.replicas ?? []).filter((r) => r.current).length;
    if (info.config.num_replicas !== want || current !== want)
      problems.push(
        `stream ${streamName}: ${info.config.num_replicas} replica(s) configured, ${current} current, not ${want}`,
      );
  }
  const msgIds: string[] = [];
  const allMsgIds: string[] = [];
  const signedSubject = `${busPrefix}events.document.signed`;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(streamName, { seq }).catch(() => undefined);
    if (!m) continue;
    const id = m.header?.get('Nats-Msg-Id') ?? '';
    if (id) allMsgIds.push(id);
    if (m.subject === signedSubject) msgIds.push(id);
  }
  await nc.close();

  // The audit.
  const byAudit = countBy(records, (r) => r.audit_id);
  const byKey = countBy(
    records.filter((r) => r.idempotency_key !== null),
    (r) => r.idempotency_key ?? '',
  );
  const duplicates =
    [...byAudit.values()].filter((n) => n > 1).length + [...byKey.values()].filter((n) => n > 1).length;
  const recordOf = new Map(records.map((r) => [r.audit_id, r]));
  const objectSet = new Set(objects);
  const recordKeys = new Set(records.map((r) => r.object_key));
  const orphans = objects.filter((o) => !recordKeys.has(o)).length;
  const checkOk = (a: Answer, what: string) => {
    const r = a.auditId ? recordOf.get(a.auditId) : undefined;
    if (!r) return problems.push(`${what} ${a.key}: no record for audit ID ${a.auditId ?? '(none)'}`);
    const hex = (h: string | undefined) => h?.replace(/^sha256:/, '');
    if (hex(r.file_hash) !== a.bodyHash || hex(a.fileHash) !== a.bodyHash)
      problems.push(
        `${what} ${a.key}: fileHash ${r.file_hash} / header ${a.fileHash ?? ''} vs bytes ${a.bodyHash ?? ''}`,
      );
    if (!objectSet.has(r.object_key)) problems.push(`${what} ${a.key}: object ${r.object_key} missing`);
    if ((byKey.get(a.key) ?? 0) !== 1)
      problems.push(`${what} ${a.key}: ${byKey.get(a.key) ?? 0} records for its key`);
  };
  for (const a of answers) {
    if (a.status === 200) checkOk(a, '200');
    else if (a.status === 'hang' || a.status === 'reset') {
      if (a.status === 'hang') problems.push(`${a.key}: ${a.error ?? 'hang'}`);
    } else if (a.status !== 503 && a.status !== 429) {
      problems.push(`${a.key}: answered ${a.status} ${a.error ?? ''}`);
    } else if (!a.retryAfter) problems.push(`${a.key}: ${a.status} without Retry-After`);
    else if (a.ms > boundMs) problems.push(`${a.key}: ${a.status} after ${a.ms} ms`);
  }
  for (const [key, a] of retries) {
    if (unresolvedSet.has(key)) continue;
    if (a.status !== 200) problems.push(`retry of ${key}: still ${a.status} ${a.error ?? ''}`);
    else checkOk(a, 'retry');
  }
  if (orphans > 0) problems.push(`${orphans} signed object(s) without a record after the grace period`);
  const withoutObject = records.filter((r) => !objectSet.has(r.object_key)).length;
  if (withoutObject > 0) problems.push(`${withoutObject} record(s) whose signed object is missing`);
  const unpublished = allOutbox.filter((o) => o.published_at === null).length;
  if (unpublished > 0) problems.push(`${unpublished} outbox row(s) never published`);
  const outboxIds = new Set(outbox.map((o) => o.id));
  const msgCount = countBy(allMsgIds, (id) => id);
  const notOnce = allOutbox.filter((o) => msgCount.get(o.id) !== 1);
  if (notOnce.length > 0)
    problems.push(
      `${notOnce.length} outbox row(s) not in JetStream exactly once (subjects: ${[...new Set(notOnce.map((o) => o.subject))].join(', ')})`,
    );
  const extraEvents = msgIds.filter((id) => !outboxIds.has(id)).length;
  if (extraEvents > 0) problems.push(`${extraEvents} signed event(s) with no outbox row`);
  const withEvent = new Set(outbox.map((o) => o.audit_id));
  const missingEvents = records.filter((r) => !withEvent.has(r.audit_id)).length;
  if (missingEvents > 0) problems.push(`${missingEvents} record(s) with no signed event in the outbox`);

  // Source 5: the key service's count. The account is on Business (no limit), so nothing was
  // reserved: every recorded document must be counted once, from its event (redeliveries after a
  // fault may take a while: up to a minute).
  const recordIds = new Set(records.map((r) => r.id));
  const countDb = new pg.Client({ connectionString: infra.postgres.url });
  countDb.on('error', () => undefined);
  await countDb.connect();
  let counted: string[] = [];
  let reserved = 0;
  try {
    for (const deadline = Date.now() + 60_000; ; await sleep(500)) {
      counted = (
        await countDb.query<{ document_id: string }>(
          'select document_id from key.document_reservations where account_id = $1 and document_id is not null',
          [accountId],
        )
      ).rows.map((r) => r.document_id);
      if (counted.length >= recordIds.size || Date.now() > deadline) break;
    }
    reserved = Number(
      (
        await countDb.query<{ n: string }>(
          'select count(*) as n from key.document_reservations where account_id = $1 and document_id is null',
          [accountId],
        )
      ).rows[0]?.n ?? 0,
    );
  } finally {
    await countDb.end().catch(() => undefined);
  }
  const countedSet = new Set(counted);
  const uncounted = [...recordIds].filter((id) => !countedSet.has(id)).length;
  if (uncounted > 0) problems.push(`${uncounted} record(s) not counted by the key service`);
  const strayCounts = counted.filter((id) => !recordIds.has(id)).length;
  if (strayCounts > 0) problems.push(`${strayCounts} counted document(s) with no record`);
  if (reserved > 0) problems.push(`${reserved} reservation(s) made for a plan without a limit`);
  const delivered = deliveries
    ? await deliveries.audit(
        records.map((r) => r.audit_id),
        unresolvedSends,
        sleep,
      )
    : undefined;
  if (delivered) problems.push(...delivered.problems);
  if (unresolvedSends.length > 0)
    problems.push(`${unresolvedSends.length} send(s) unresolved: the audit's retry budget ran out`);
  if (scenario.samePids) {
    const pidsAtEnd = pidList(running);
    const gone = pidsAtStart.filter((p) => !pidsAtEnd.includes(p));
    const added = pidsAtEnd.filter((p) => !pidsAtStart.includes(p));
    if (gone.length > 0 || added.length > 0)
      problems.push(
        `service processes changed: ${gone.join(', ') || 'none'} gone, ${added.join(', ') || 'none'} new`,
      );
    else notes.push(`the same ${pidsAtEnd.length} service processes (pids) at the end as at the start`);
    notes.push(`${serviceExits.length} error line(s) from the services`);
  }
  for (const line of serviceExits.slice(0, 5)) log(`  service error: ${line}`);

  const byStatus = Object.fromEntries(countBy(answers, (a) => String(a.status)));
  const slowest = Math.max(0, ...answers.filter((a) => a.status !== 200).map((a) => a.ms));
  const okMs = answers
    .filter((a) => a.status === 200)
    .map((a) => a.ms)
    .sort((a, b) => a - b);
  log(
    `${scenario.name}: burst ${(burstMs / 1000).toFixed(1)} s, ${answers.length} requests, ${retries.size} retried, slowest failure ${(slowest / 1000).toFixed(1)} s, errors: ${[...new Set(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.error ?? ''}`))].slice(0, 4).join(' / ')}` +
      (problems.length ? `\n  ${problems.slice(0, 20).join('\n  ')}` : ''),
  );
  return {
    scenario: scenario.name,
    requests: answers.length,
    byStatus,
    records: records.length,
    objects: objects.length,
    events: msgIds.length,
    duplicates,
    orphans,
    recoveryMs,
    retried: retries.size,
    okP50Ms: okMs[Math.floor(okMs.length / 2)],
    slowestMs: Math.max(0, ...answers.map((a) => a.ms)),
    okRate,
    ...(delivered ? { deliveries: delivered.counts } : {}),
    notes,
    problems,
    holds: problems.length === 0,
  };
};

const pad = (s: string, n: number) => s.padEnd(n);

/** Why a scenario did not hold, in one line for its row (the first problem, and how many more). */
const reasonOf = (r: Report): string => {
  const first = (r.problems[0] ?? 'failed').split('\n')[0] ?? '';
  const more = r.problems.length > 1 ? ` (+${r.problems.length - 1} more)` : '';
  return `${first.length > 100 ? `${first.slice(0, 99)}…` : first}${more}`;
};

/** One table for all scenarios run. */
export const formatTable = (reports: readonly Report[]): string => {
  const head = [
    'scenario',
    'requests',
    'answers by status',
    'records',
    'objects',
    'events',
    'dups',
    'orphans',
    'recovery',
    '200 p50 / slowest',
    '200/s before / during',
    'sends / mails / hooks',
    'holds',
  ];
  const rows = reports.map((r) => [
    r.scenario,
    String(r.requests),
    Object.entries(r.byStatus)
      .map(([s, n]) => `${s}:${n}`)
      .join(' '),
    String(r.records),
    String(r.objects),
    String(r.events),
    String(r.duplicates),
    String(r.orphans),
    r.recoveryMs === undefined ? '-' : `${(r.recoveryMs / 1000).toFixed(1)} s`,
    `${r.okP50Ms === undefined ? '-' : (r.okP50Ms / 1000).toFixed(2)} / ${(r.slowestMs / 1000).toFixed(1)} s`,
    `${r.okRate.before.toFixed(1)} / ${r.okRate.during.toFixed(1)}`,
    r.deliveries ? `${r.deliveries.accepted} / ${r.deliveries.mails} / ${r.deliveries.webhooks}` : '-',
    r.holds ? 'yes' : `no: ${reasonOf(r)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
};

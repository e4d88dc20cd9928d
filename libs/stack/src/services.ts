import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports';

/** The repository root (this file is libs/stack/src/services.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Services in start order: those others call first, the gateway last. Started by default. */
export const SERVICE_NAMES = [
  'key',
  'document-store',
  'pdf-signer',
  'template',
  'webhook',
  'gateway',
] as const;
/**
 * Services started only when asked for by name (`services`): the mailer needs an SMTP server to send
 * to (`pnpm dev` runs a catcher and passes it in `serviceEnv.mailer`; a test that reads email does the
 * same with `startSmtpCapture`). In a stack without one it would only retry failing sends.
 */
export const OPTIONAL_SERVICE_NAMES = ['mailer'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number] | (typeof OPTIONAL_SERVICE_NAMES)[number];

export interface InfraEndpoints {
  natsUrl: string;
  databaseUrl: string;
  s3: { endpoint: string; accessKey: string; secretKey: string; region: string; bucket: string };
}

export interface StackOptions extends InfraEndpoints {
  busPrefix: string;
  /** Port of the gateway; 0 picks a free one. */
  gatewayPort: number;
  services?: readonly ServiceName[];
  /** Extra environment for every service (or per service). */
  env?: Record<string, string>;
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Processes per service (default 1; the gateway always runs one here, on `gatewayPort`). */
  replicas?: Partial<Record<Exclude<ServiceName, 'gateway'>, number>>;
  /** Extra Node options per service (for example `--cpu-prof`). */
  nodeOptions?: Partial<Record<ServiceName, string[]>>;
  /** Receives every line a service prints. Default: discard. */
  onLine?: (service: ServiceName, line: string) => void;
  /**
   * Told when a service process has exited and its output is read to the end (the chaos harness fails
   * a scenario on an unexpected one); `expected` when this handle stopped it.
   */
  onExit?: (exit: ServiceExit) => void;
  readyTimeoutMs?: number;
  /**
   * Restart a service process that dies on its own (not stopped through this handle), after a
   * delay that doubles with each quick death (1 s up to 30 s; back to 1 s once it stayed up a minute).
   * `pnpm dev` uses it so that a crash does not leave the stack half up; tests leave it off.
   */
  supervise?: { onRestart: (event: RestartEvent) => void };
}

/** One service process that exited. */
export interface ServiceExit {
  readonly service: ServiceName;
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly expected: boolean;
}

/** What a supervised stack tells when a service process died and is started again. */
export interface RestartEvent {
  readonly service: ServiceName;
  /** Exit code, or the signal that ended it. */
  readonly exit: string;
  readonly delayMs: number;
  /** How many times in a row it died soon after starting. */
  readonly attempt: number;
}

const RESTART_BASE_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A process that stayed up this long counts as healthy again: its next death restarts it at once-ish. */
const STABLE_AFTER_MS = 60_000;

interface RunningService {
  name: ServiceName;
  child: ChildProcess;
  /** Where /readyz answers (the gateway's API port; every other service's operations port). */
  healthUrl: string;
  /** The operations port's origin: /metrics. */
  opsUrl: string;
  /** Set when this handle stops it: its exit is expected. */
  stopping?: boolean;
}

export interface RunningStack {
  readonly gatewayUrl: string;
  /** Stop one service (SIGTERM, then SIGKILL after a grace period). */
  stopService(name: ServiceName): Promise<void>;
  /** Process ids of each running service (for measurements). */
  pids(): Partial<Record<ServiceName, number[]>>;
  /** Each running process's /metrics URL (Prometheus text format), per service. */
  metricsUrls(): Partial<Record<ServiceName, string[]>>;
  /** Start a stopped service again with the same configuration. */
  startService(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

const waitReady = async (svc: RunningService, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  svc.child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(`${svc.name} exited during start-up (code ${svc.child.exitCode ?? 'signal'})`);
    try {
      const res = await fetch(`${svc.healthUrl}/readyz`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${svc.name} was not ready within ${timeoutMs} ms`);
};

const stopChild = async (child: ChildProcess, graceMs = 15_000): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
};

/**
 * Start the services as separate Node processes (exactly as in a container: `node --import tsx
 * services/<name>/src/main.ts`), wait until each answers /readyz, and return a handle to stop them.
 */
export const startServices = async (options: StackOptions): Promise<RunningStack> => {
  const names =
    options.services ??
    SERVICE_NAMES.filter((n) => existsSync(join(REPO_ROOT, 'services', n, 'src', 'main.ts')));
  const gatewayPort = options.gatewayPort || (await freePort());
  const running = new Map<ServiceName, RunningService[]>();
  /** Quick deaths in a row per service, and restarts waiting for their delay. */
  const deaths = new Map<ServiceName, number>();
  const restarts = new Set<NodeJS.Timeout>();
  let stopped = false;
  const replicasOf = (name: ServiceName) =>
    name === 'gateway' ? 1 : Math.max(1, options.replicas?.[name] ?? 1);

  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    NATS_URL: options.natsUrl,
    BUS_PREFIX: options.busPrefix,
    DATABASE_URL: options.databaseUrl,
    S3_ENDPOINT: options.s3.endpoint,
    S3_ACCESS_KEY: options.s3.accessKey,
    S3_SECRET_KEY: options.s3.secretKey,
    S3_REGION: options.s3.region,
    S3_BUCKET: options.s3.bucket,
    ...options.env,
  };

  const launchOne = async (name: ServiceName): Promise<RunningService> => {
    const port = name === 'gateway' ? gatewayPort : await freePort();
    // The gateway's probes answer on its API port too; its metrics only on its operations port.
    const opsPort = name === 'gateway' ? await freePort() : port;
    const env = {
      ...baseEnv,
      ...(name === 'gateway' ? { PORT: String(port) } : {}),
      HEALTH_PORT: String(opsPort),
      ...options.serviceEnv?.[name],
    };
    const src = join('services', name, 'src');
    // Exactly as the container runs it: tracing is set up (instrument.ts) before main.ts loads anything.
    const args = [
      ...(options.nodeOptions?.[name] ?? []),
      '--import',
      'tsx',
      '--import',
      `./${join(src, 'instrument.ts')}`,
      join(src, 'main.ts'),
    ];
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => options.onLine?.(name, line));
    }
    const svc: RunningService = {
      name,
      child,
      healthUrl: `http://127.0.0.1:${port}`,
      opsUrl: `http://127.0.0.1:${opsPort}`,
    };
    running.set(name, [...(running.get(name) ?? []), svc]);
    if (stopped) {
      // A restart that began as the stack was being stopped.
      svc.stopping = true;
      void stopChild(child);
    }
    const startedAt = Date.now();
    child.once('close', (code, signal) =>
      options.onExit?.({ service: name, pid: child.pid, code, signal, expected: !!svc.stopping || stopped }),
    );
    child.once('exit', (code, signal) => {
      if (svc.stopping || stopped || !options.supervise) return;
      running.set(
        name,
        (running.get(name) ?? []).filter((other) => other !== svc),
      );
      const quick = Date.now() - startedAt < STABLE_AFTER_MS;
      const attempt = quick ? (deaths.get(name) ?? 0) + 1 : 1;
      deaths.set(name, attempt);
      const delayMs = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (attempt - 1));
      options.supervise.onRestart({ service: name, exit: signal ?? `code ${code ?? '?'}`, delayMs, attempt });
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (stopped) return;
        // A restart that fails to become ready dies again and is retried by the same rule.
        launchOne(name).catch(() => undefined);
      }, delayMs);
      restarts.add(timer);
    });
    await waitReady(svc, options.readyTimeoutMs ?? 60_000);
    return svc;
  };

  const launch = async (name: ServiceName) => {
    running.delete(name);
    await Promise.all(Array.from({ length: replicasOf(name) }, () => launchOne(name)));
  };

  const stopService = async (name: ServiceName) => {
    await Promise.all(
      (running.get(name) ?? []).map((svc) => {
        svc.stopping = true;
        return stopChild(svc.child);
      }),
    );
  };

  const stopAll = async () => {
    stopped = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    // The gateway first (no new work comes in), then the rest together.
    await stopService('gateway');
    await Promise.all(names.filter((n) => n !== 'gateway').map(stopService));
  };

  try {
    // Start in parallel: each waits for its own dependencies through the bus when it is first used.
    await Promise.all(names.map(launch));
  } catch (err) {
    await stopAll();
    throw err;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    stopService,
    startService: launch,
    pids: () =>
      Object.fromEntries(
        [...running.entries()].map(([name, list]) => [
          name,
          list.map((svc) => svc.child.pid).filter((pid): pid is number => pid !== undefined),
        ]),
      ),
    metricsUrls: () =>
      Object.fromEntries(
        [...running.entries()].map(([name, list]) => [name, list.map((svc) => `${svc.opsUrl}/metrics`)]),
      ),
    stop: stopAll,
  };
};

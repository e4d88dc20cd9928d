import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { untraced } from './background';
import type { Metrics } from './metrics/provider';
import type { Resource } from './start-service';

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  port: number;
  ready: () => Promise<boolean> | boolean;
  /** Served at /metrics (Prometheus text format). */
  metrics?: Pick<Metrics, 'handle'>;
}

/**
 * The operations port of every service: /healthz (the process is alive), /readyz (its dependencies
 * answer) and /metrics. The gateway serves its API on a port of its own, so that neither the probes
 * nor the metrics are reachable through the public ingress.
 */
export const startHealthServer = async (options: HealthServerOptions): Promise<HealthServer> => {
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/healthz') return reply(200, { status: 'ok' });
    if (req.url === '/readyz') {
      // Probes come every few seconds: their checks are not traced (nor is the probe, see tracing.ts).
      Promise.resolve(untraced(options.ready))
        .then((ok) => reply(ok ? 200 : 503, { status: ok ? 'ready' : 'not ready' }))
        .catch(() => reply(503, { status: 'not ready' }));
      return;
    }
    if (req.url === '/metrics' && options.metrics) return options.metrics.handle(req, res);
    reply(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(options.port, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/**
 * The health server as the last resource of `startService`: stopped first, so that a draining
 * replica's probes stop answering before its connections close.
 */
export const healthServer = (options: HealthServerOptions): Resource<HealthServer> => ({
  name: 'health server',
  start: () => startHealthServer(options),
  stop: (server) => server.close(),
});

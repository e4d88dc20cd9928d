import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly path: string;
}

/** A real HTTP server in the test process that records every webhook it gets. */
export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedWebhook[];
  /** How the next requests are answered (default 204). */
  respond(answer: (request: ReceivedWebhook, n: number, res: ServerResponse) => void): void;
  /** Resolves once `count` requests matched. */
  waitFor(
    count: number,
    match?: (r: ReceivedWebhook) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * Start a receiver on `host` (default 127.0.0.3: a loopback address of its own, so that the stack can
 * allow exactly it while 127.0.0.1 and `localhost` stay refused) and a free port, or the port given.
 */
export const startWebhookReceiver = async (
  options: { host?: string; port?: number } = {},
): Promise<WebhookReceiver> => {
  const host = options.host ?? '127.0.0.3';
  const received: ReceivedWebhook[] = [];
  let answer: (request: ReceivedWebhook, n: number, res: ServerResponse) => void = (_r, _n, res) => {
    res.statusCode = 204;
    res.end();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
      };
      received.push(request);
      answer(request, received.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/hooks`,
    received,
    respond(fn) {
      answer = fn;
    },
    async waitFor(count, match = () => true, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hits = received.filter(match);
        if (hits.length >= count) return hits;
        if (Date.now() > deadline) {
          throw new Error(`receiver got ${hits.length} matching webhooks of ${count} within ${timeoutMs} ms`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

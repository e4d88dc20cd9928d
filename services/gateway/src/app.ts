import express, { type Express } from 'express';
import { untraced } from '@esign/telemetry';
import { mountOperations } from './api/mount';
import type { AuthKind, CallerOf } from './api/operation';
import type { GatewayDeps } from './deps';
import { OPERATIONS } from './endpoints';
import { mountDeveloperResources } from './endpoints/developer-resources';
import { errorHandler, sendError } from './http/errors';
import { requestMetrics, routeAs } from './http/request-metrics';
import { redactSigningPath } from './http/signing-token';
import { loadWebPage, mountWebAssets, sendWebPage } from './http/web-pages';

/** The account an API-key request was made for (the request log names it; dashboard requests it does not). */
const apiKeyAccountOf = (caller: CallerOf<AuthKind>): string | undefined =>
  caller?.kind === 'apiKey' ? caller.accountId : undefined;

/** The HTTP edge: every declared operation, the developer resources, and error mapping. No business logic lives here. */
export const createApp = (deps: GatewayDeps): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('etag', false);

  app.use(requestMetrics(deps.metrics));
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    // Every request's outcome is logged, also when the client went away before the answer.
    res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      deps.logger.info('request', {
        method: req.method,
        // A signing link's token is a secret: never logged (`/s/:token`).
        path: redactSigningPath(req.originalUrl.split('?')[0] ?? ''),
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
        accountId: apiKeyAccountOf(res.locals.caller as CallerOf<AuthKind>),
      });
    });
    next();
  });

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    // Probes come every few seconds: their checks are not traced (nor is the probe itself, see tracing.ts).
    const ready = deps.bus.isConnected() && (await untraced(() => deps.blob.ping()));
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });

  mountOperations(app, OPERATIONS, deps);
  mountDeveloperResources(app, deps);
  app.use('/web', routeAs('/web/*'));
  mountWebAssets(app);
  // The dashboard: one page, its views routed in the browser (#/keys, #/documents, …).
  const dashboard = loadWebPage('dashboard');
  app.get(['/dashboard', '/dashboard/'], (_req, res) => sendWebPage(res, dashboard));
  // The public verification page; /verify/<auditId> (printed on every audit page) shows that record too.
  const verifyPage = loadWebPage('verify');
  // Two routes, not one with two paths: each is counted under its own template.
  app.get('/verify', (_req, res) => sendWebPage(res, verifyPage));
  app.get('/verify/:auditId', (_req, res) => sendWebPage(res, verifyPage));

  app.use((_req, res) => sendError(res, 'not_found', 'No such endpoint'));
  app.use(errorHandler(deps.logger));
  return app;
};

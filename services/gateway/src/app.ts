import express, { type Express } from 'express';
import { untraced } from '@esign/telemetry';
import type { GatewayDeps } from './deps';
import { requireApiKey } from './http/auth';
import { errorHandler, sendError } from './http/errors';
import { rateLimit } from './http/rate-limit';
import { documentsRouter } from './routes/documents';
import { signReferenceRoute, signRouter } from './routes/sign';
import { templatesRouter } from './routes/templates';

/** The HTTP edge: routes, auth, limits and error mapping. No business logic lives here. */
export const createApp = (deps: GatewayDeps): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('etag', false);

  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      deps.logger.info('request', {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
        accountId: (res.locals.principal as { accountId?: string } | undefined)?.accountId,
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

  const limit = rateLimit({ perMinute: deps.config.RATE_LIMIT_PER_MINUTE, counter: deps.rateCounter });
  app.get('/api/v1/sign', limit, signReferenceRoute(deps));

  const v1 = express.Router();
  v1.use(requireApiKey(deps), limit);
  v1.use(signRouter(deps));
  v1.use(documentsRouter(deps));
  v1.use(templatesRouter(deps));
  app.use('/api/v1', v1);

  app.use((_req, res) => sendError(res, 'not_found', 'No such endpoint'));
  app.use(errorHandler(deps.logger));
  return app;
};

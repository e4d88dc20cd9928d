import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import { buildOpenApiDocument } from '../api/openapi';
import { buildPostmanCollection } from '../api/postman/collection';
import { buildPostmanEnvironment } from '../api/postman/environment';
import { ZGatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';
import { rateLimit } from '../http/rate-limit';
import { routeAs } from '../http/request-metrics';
import { escapeHtml } from '../http/html';
import { OPERATIONS } from './index';
import { WEBHOOK_EVENTS } from './webhooks.schemas';

/** Version of the public API description (the path says v1; this counts compatible revisions). */
export const API_VERSION = '1.0.0';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The API reference page: Swagger UI from the gateway's own assets, reading /openapi.json. */
const docsPage = (sandboxToken: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>esign API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/docs.css">
</head>
<body>
<header class="esign-intro">
<h1>esign API reference</h1>
<p>Every <code>/api/v1</code> endpoint takes <code>Authorization: Bearer &lt;API_KEY&gt;</code> (a <code>svc_live_</code> key of a Business account).
The sandbox endpoint takes this deployment's public sandbox token: <code id="sandbox-token">${escapeHtml(sandboxToken)}</code>.</p>
<p>Downloads: <a href="/openapi.json">OpenAPI 3.1 document</a> ·
<a href="/postman/collection.json" download>Postman collection</a> ·
<a href="/postman/environment.json" download>Postman environment</a> ·
<a href="/api/v1/sign">field reference of POST /api/v1/sign</a></p>
</header>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// No validator badge (it would call a third-party service) and nothing else from outside.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

const DOCS_CSS = `.esign-intro { font: 15px/1.5 system-ui, sans-serif; max-width: 1460px; margin: 1.5rem auto 0; padding: 0 20px; color: #1f2937; }
.esign-intro code { background: #f3f4f6; padding: 0 .25rem; border-radius: 3px; word-break: break-all; }
`;

/** Only this origin; Swagger UI sets inline styles. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/** The OpenAPI document of a configuration. */
export const openApiFor = (config: { SANDBOX_TOKEN: string; PUBLIC_BASE_URL?: string | undefined }) =>
  buildOpenApiDocument(OPERATIONS, {
    sandboxToken: config.SANDBOX_TOKEN,
    serverUrl: config.PUBLIC_BASE_URL,
    version: API_VERSION,
    webhookEvents: WEBHOOK_EVENTS,
  });

/** The Postman exports of a configuration, generated from its OpenAPI document. */
export const postmanFor = (config: { SANDBOX_TOKEN: string; PUBLIC_BASE_URL?: string | undefined }) => ({
  collection: buildPostmanCollection(openApiFor(config)),
  environment: buildPostmanEnvironment({
    sandboxToken: config.SANDBOX_TOKEN,
    baseUrl: config.PUBLIC_BASE_URL,
  }),
});

/** JSON as the committed files hold it: two-space indents and a final newline. */
export const asFile = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The files committed beside the code (paths from the repository root), as the gateway serves them
 * with its default configuration.
 */
export const apiDescriptionFiles = (): Record<string, string> => {
  const config = ZGatewayConfig.parse({});
  const postman = postmanFor(config);
  return {
    'docs/openapi.json': asFile(openApiFor(config)),
    'postman/collection.json': asFile(postman.collection),
    'postman/environment.json': asFile(postman.environment),
  };
};

/**
 * What a client developer finds next to the API, all generated from the operation declarations:
 * `/openapi.json`, the `/docs` page (served offline), and the Postman exports under `/postman/`.
 */
export const mountDeveloperResources = (app: Express, deps: GatewayDeps): void => {
  const limit = rateLimit({ perMinute: deps.config.RATE_LIMIT_PER_MINUTE, counter: deps.rateCounter });
  const openApi = openApiFor(deps.config);
  const docs = docsPage(deps.config.SANDBOX_TOKEN);
  const postman = postmanFor(deps.config);

  app.get('/openapi.json', limit, (_req, res) => void res.json(openApi));
  app.get('/postman/collection.json', limit, (_req, res) => void res.json(postman.collection));
  app.get('/postman/environment.json', limit, (_req, res) => void res.json(postman.environment));
  app.get(['/docs', '/docs/'], limit, (_req, res) => {
    res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY).type('html').send(docs);
  });
  app.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(INIT_SCRIPT));
  app.get('/docs/docs.css', (_req, res) => void res.type('text/css').send(DOCS_CSS));
  app.use(
    '/docs/assets',
    routeAs('/docs/assets/*'),
    express.static(swaggerUiDir, { index: false, maxAge: '1d', fallthrough: true }),
  );
};

/**
 * Start OpenTelemetry for this process. Must run before anything else is imported (each service
 * loads it first from `src/instrument.ts`). Configured with the standard OTEL_* variables; without an
 * exporter configured it stays off and loads nothing (the SDK and its instrumentations are imported
 * only when tracing is on, which keeps start-up fast).
 */
export const startTracing = async (
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
  options: {
    /**
     * Rewrites the path of an incoming request before it is recorded on its span (`url.path`,
     * `url.full`, `http.target`, `http.url`): for paths that hold secrets, such as signing links.
     */
    redactPath?: (path: string) => string;
  } = {},
): Promise<() => Promise<void>> => {
  const enabled = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!enabled || env.OTEL_SDK_DISABLED === 'true') return () => Promise.resolve();
  env.OTEL_SERVICE_NAME ??= serviceName;
  const { redactPath } = options;
  const [{ NodeSDK }, { getNodeAutoInstrumentations }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/auto-instrumentations-node'),
  ]);
  const sdk = new NodeSDK({
    instrumentations: [
      getNodeAutoInstrumentations({
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
        // Probes and scrapes would be a trace every few seconds per pod.
        '@opentelemetry/instrumentation-http': {
          ignoreIncomingRequestHook: (req) =>
            req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
          ...(redactPath
            ? {
                requestHook: (span, request) => {
                  // Incoming requests only (an IncomingMessage has no getHeader).
                  if ('getHeader' in request || typeof request.url !== 'string') return;
                  const [path = '', query] = request.url.split('?');
                  const redacted = redactPath(path);
                  if (redacted === path) return;
                  const target = query === undefined ? redacted : `${redacted}?${query}`;
                  const host = request.headers.host ?? 'localhost';
                  span.setAttributes({
                    'url.path': redacted,
                    'url.full': `http://${host}${target}`,
                    'http.target': target,
                    'http.url': `http://${host}${target}`,
                  });
                },
              }
            : {}),
        },
      }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
};

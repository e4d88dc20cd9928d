import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';

/**
 * Start OpenTelemetry for this process. Must run before anything else is imported (each service
 * loads it from `src/instrument.ts` with `--import`). Configured with the standard OTEL_* variables;
 * without an exporter configured it stays off and costs nothing.
 */
export const startTracing = (
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): (() => Promise<void>) => {
  const enabled = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!enabled || env.OTEL_SDK_DISABLED === 'true') return () => Promise.resolve();
  env.OTEL_SERVICE_NAME ??= serviceName;
  const sdk = new NodeSDK({
    instrumentations: [
      getNodeAutoInstrumentations({
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
      }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
};

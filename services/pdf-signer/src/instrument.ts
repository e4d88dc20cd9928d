import { startTracing } from '@esign/telemetry/tracing';

startTracing('pdf-signer');

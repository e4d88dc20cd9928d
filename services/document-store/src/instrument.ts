import { startTracing } from '@esign/telemetry/tracing';

startTracing('document-store');

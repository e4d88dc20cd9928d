import { startTracing } from '@esign/telemetry/tracing';

startTracing('template');

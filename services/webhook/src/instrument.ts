import { startTracing } from '@esign/telemetry/tracing';

// Loaded with `--import` before main.ts, so that instrumentation hooks exist before anything is required.
await startTracing('webhook');

import { startTracing } from '@esign/telemetry/tracing';
import { redactSigningPath } from './http/signing-token';

// Loaded with `--import` before main.ts, so that instrumentation hooks exist before anything is required.
// Signing links carry a secret in their path: spans record `/s/:token`.
await startTracing('gateway', process.env, { redactPath: redactSigningPath });

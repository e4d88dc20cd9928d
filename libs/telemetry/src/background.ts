import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

/**
 * Run background work (a poll, a periodic check) with tracing off and outside any request's trace:
 * a poll that finds nothing every second would otherwise fill the tracing backend with traces of
 * `begin`/`select`/`commit`, and one started by a request would hang off that request's trace.
 */
export const untraced = <T>(work: () => T): T => context.with(suppressTracing(ROOT_CONTEXT), work);

/**
 * Run background work that found something to do as the root span of a trace of its own (also from
 * inside `untraced`): what it does (queries, messages) shows up under `name`.
 */
export const inNewTrace = <T>(
  name: string,
  attributes: Record<string, string | number>,
  work: () => Promise<T>,
): Promise<T> =>
  context.with(ROOT_CONTEXT, () =>
    trace.getTracer('esign').startActiveSpan(name, { attributes }, async (span) => {
      try {
        return await work();
      } catch (err) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: err instanceof Error ? err.message : String(err),
        });
        if (err instanceof Error) span.recordException(err);
        throw err;
      } finally {
        span.end();
      }
    }),
  );

import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Link } from '@opentelemetry/api';
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
  /** Traces this work follows from (carriers from `traceCarrier`), linked to its span. */
  followsFrom: readonly (TraceCarrier | null | undefined)[] = [],
): Promise<T> =>
  context.with(ROOT_CONTEXT, () =>
    trace
      .getTracer('esign')
      .startActiveSpan(name, { attributes, links: linksTo(followsFrom) }, async (span) => {
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

/** The active trace context in W3C form (`traceparent`, `tracestate`), to keep with stored work. */
export type TraceCarrier = Record<string, string>;

/** The active trace context as a carrier; undefined when there is none (tracing off). */
export const traceCarrier = (): TraceCarrier | undefined => {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
};

/** Run `work` in the trace context a carrier holds (work stored by a request, done later). */
export const inTraceOf = <T>(carrier: TraceCarrier | null | undefined, work: () => T): T =>
  carrier ? context.with(propagation.extract(ROOT_CONTEXT, carrier), work) : work();

const linksTo = (carriers: readonly (TraceCarrier | null | undefined)[]): Link[] =>
  carriers.flatMap((carrier) => {
    if (!carrier) return [];
    const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
    return spanContext ? [{ context: spanContext }] : [];
  });

import { trace } from '@opentelemetry/api';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** Structured JSON logs, one object a line, with the active trace and span ids. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/**
 * Query parameters are user data (search text, names, account ids): a database error's text may carry
 * them (drizzle writes `params: …` after the query), so they are cut before anything is logged.
 */
const withoutParams = (text: string | undefined): string | undefined =>
  text?.replace(/\nparams: [^\n]*/g, '\nparams: [redacted]');

const serializeError = (err: unknown, depth = 0): unknown =>
  err instanceof Error
    ? {
        name: err.name,
        message: withoutParams(err.message),
        stack: withoutParams(err.stack),
        ...(err.cause !== undefined && depth < 3 ? { cause: serializeError(err.cause, depth + 1) } : {}),
      }
    : err;

export const createLogger = (options: {
  service: string;
  level?: LogLevel;
  base?: LogFields;
  write?: (line: string) => void;
}): Logger => {
  const min = order[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const base = { service: options.service, ...options.base };
  const log =
    (level: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (order[level] < min) return;
      const span = trace.getActiveSpan()?.spanContext();
      const entry: LogFields = { time: new Date().toISOString(), level, msg, ...base };
      if (span) Object.assign(entry, { trace_id: span.traceId, span_id: span.spanId });
      for (const [k, v] of Object.entries(fields ?? {})) entry[k] = k === 'err' ? serializeError(v) : v;
      write(`${JSON.stringify(entry)}\n`);
    };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (fields) => createLogger({ ...options, base: { ...options.base, ...fields } }),
  };
};

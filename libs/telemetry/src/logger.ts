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

const serializeError = (err: unknown): unknown =>
  err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : err;

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

import type { Request, RequestHandler, Response } from 'express';
import type { CounterOf, HistogramOf, Instruments, UpDownOf } from '@esign/telemetry';
import type { TRefusal } from './refusal';

/** The edge's instruments (`httpRequestDuration` … `uploadsActive` of the catalog), created once at start-up. */
export interface EdgeMetrics {
  readonly duration: HistogramOf<'httpRequestDuration'>;
  readonly active: UpDownOf<'httpActiveRequests'>;
  readonly bytesIn: HistogramOf<'httpRequestBodySize'>;
  readonly bytesOut: HistogramOf<'httpResponseBodySize'>;
  readonly refused: CounterOf<'httpRefused'>;
  /** File uploads streaming to object storage now (see `receiveUpload`). */
  readonly uploads: UpDownOf<'uploadsActive'>;
}

export const createEdgeMetrics = (metrics: Instruments): EdgeMetrics => ({
  duration: metrics.histogram('httpRequestDuration'),
  active: metrics.updown('httpActiveRequests'),
  bytesIn: metrics.histogram('httpRequestBodySize'),
  bytesOut: metrics.histogram('httpResponseBodySize'),
  refused: metrics.counter('httpRefused'),
  uploads: metrics.updown('uploadsActive'),
});

/** The route of a request no route matched (a 404, or one refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods named as they are; anything else a client invents is one value (OpenTelemetry's `_OTHER`). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What one request has done so far, read when it ends. */
interface Tally {
  route: string | undefined;
  refused: TRefusal | undefined;
  bytesIn: number;
  bytesOut: number;
}

const TALLY = 'requestMetrics';

/** The request's tally; absent when the metrics middleware is not mounted. */
const tallyOf = (res: Response): Tally | undefined => res.locals[TALLY] as Tally | undefined;

/** Name the route template a request is counted under (an operation knows its own path template). */
export const markRoute = (res: Response, route: string): void => {
  const tally = tallyOf(res);
  if (tally) tally.route = route;
};

/** Count the request as refused, under its route, when it ends. */
export const markRefused = (res: Response, reason: TRefusal): void => {
  const tally = tallyOf(res);
  if (tally) tally.refused = reason;
};

/** Count a mount that has no route of its own (static files) under one template: `/web/*`. */
export const routeAs =
  (route: string): RequestHandler =>
  (_req, res, next) => {
    markRoute(res, route);
    next();
  };

/**
 * Count a request body's bytes as its reader reads them (the wire bytes, whatever Content-Length
 * claimed): call where a body is read, once its reader is attached, so that the count never starts
 * the stream itself. A body nobody reads (a request refused first) counts 0.
 */
export const countRequestBody = (req: Request, res: Response): void => {
  const tally = tallyOf(res);
  if (!tally) return;
  req.on('data', (chunk: Buffer) => {
    tally.bytesIn += chunk.length;
  });
};

const byteLength = (chunk: unknown, encoding: unknown): number =>
  typeof chunk === 'string'
    ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
    : chunk instanceof Uint8Array
      ? chunk.byteLength
      : 0;

/** Count what is written to the response body, by whichever means (send, pipe, static files). */
const countResponseBody = (res: Response, tally: Tally): void => {
  // Node's own methods, called with their response as `this` as before.
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    tally.bytesOut += byteLength(args[0], args[1]);
    return write(...args);
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    if (typeof args[0] !== 'function') tally.bytesOut += byteLength(args[0], args[1]);
    return end(...args);
  }) as Response['end'];
};

/** The template of the route that served the request (the first path of a route declared with several). */
const routeOf = (req: Request): string => {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  if (Array.isArray(path) && typeof path[0] === 'string') return path[0];
  return UNMATCHED_ROUTE;
};

/** `2xx` … `5xx`; `aborted` when the response was not written whole (the client went away, or a body stream failed). */
const statusClassOf = (res: Response): string =>
  res.writableFinished ? `${Math.trunc(res.statusCode / 100)}xx` : 'aborted';

/** Responses Node sends without a body, whatever was written (HEAD, 204, 304). */
const hasNoBody = (req: Request, res: Response): boolean =>
  req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;

/**
 * The edge's request metrics, mounted first: requests in flight, then when a request ends (answered,
 * or the client gone) its duration by route template, method and status class, the bytes read from
 * its body and written to its response, and whether it was refused (`markRefused`). The route is the
 * template (`/api/v1/documents/:auditId`), never the path; `unmatched` when no route served it.
 */
export const requestMetrics =
  (edge: EdgeMetrics): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    const method = METHODS.has(req.method) ? req.method : '_OTHER';
    const tally: Tally = { route: undefined, refused: undefined, bytesIn: 0, bytesOut: 0 };
    res.locals[TALLY] = tally;
    countResponseBody(res, tally);
    const inFlight = { 'http.request.method': method };
    edge.active.add(1, inFlight);
    res.once('close', () => {
      edge.active.add(-1, inFlight);
      const route = tally.route ?? routeOf(req);
      const labels = { 'http.request.method': method, 'http.route': route };
      edge.duration.record(Number(process.hrtime.bigint() - started) / 1e9, {
        ...labels,
        'http.response.status_class': statusClassOf(res),
      });
      edge.bytesIn.record(tally.bytesIn, labels);
      edge.bytesOut.record(hasNoBody(req, res) ? 0 : tally.bytesOut, labels);
      if (tally.refused) edge.refused.add(1, { 'http.route': route, reason: tally.refused });
    });
    next();
  };

import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { parseOrThrow, ServiceError } from '@esign/contracts';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { authenticate } from '../http/auth';
import { clientIp, userAgent } from '../http/client-info';
import { receiveUpload, type ReceivedFile, type ReceivedUpload } from '../http/receive-upload';
import { rateLimit } from '../http/rate-limit';
import { countRequestBody, markRoute } from '../http/request-metrics';
import { checkOrigin, ownOrigin } from '../http/session';
import { requestFingerprint, type StoredAnswer } from './idempotency';
import type { AnyOperation, CallerOf, OperationResult } from './operation';
import { ZIdempotencyHeaders } from './public-schemas';

/** `/api/v1/documents/{auditId}` as Express writes it: `/api/v1/documents/:auditId`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

const single = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

/** Query values as strings (the first of repeated ones); empty values are left out so defaults apply. */
const queryOf = (req: Request): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(req.query)
      .map(([k, v]): [string, unknown] => [k, single(v)])
      .filter(([, v]) => v !== ''),
  );

/** The declared headers, by their canonical names. */
const headersOf = (req: Request, schema: z.ZodObject): Record<string, string | undefined> =>
  Object.fromEntries(Object.keys(schema.shape).map((name) => [name, req.get(name)]));

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const jsonBody = (limit: string): RequestHandler => {
  const parse = express.json({ limit });
  return (req, res, next) => {
    if (!req.is('application/json')) {
      next(new ServiceError('invalid_argument', 'Content-Type must be application/json', 'body'));
      return;
    }
    parse(req, res, next);
    countRequestBody(req, res);
  };
};

/** A JSON answer's body through the operation's public schema. */
const publicJson = (op: AnyOperation, status: number, json: unknown): unknown => {
  const schema = op.responses[status]?.json;
  if (!schema) throw new Error(`${op.id} answered ${status}, which it does not declare`);
  const body = schema.safeParse(json);
  if (!body.success) {
    // The public shape is a promise to clients: an internal change must not leak through it.
    throw new Error(`${op.id}: response does not match its public schema: ${body.error.message}`);
  }
  return body.data;
};

/** Write what a handler answered; a JSON body goes out through the operation's public schema. */
const writeResult = (op: AnyOperation, deps: GatewayDeps, res: Response, result: OperationResult): void => {
  res.status(result.status);
  if (result.headers) res.set(result.headers);
  if ('empty' in result) {
    res.end();
    return;
  }
  if ('json' in result) {
    res.json(publicJson(op, result.status, result.json));
    return;
  }
  if ('html' in result) {
    res.type('html').send(result.html);
    return;
  }
  res.set({ 'Content-Type': result.contentType, 'Content-Length': String(result.size) });
  if (result.onClose) res.once('close', result.onClose);
  result.stream.on('error', (err) => {
    deps.logger.error('streaming a response body failed', { operation: op.id, err });
    res.destroy(err);
  });
  result.stream.pipe(res);
};

/**
 * Serve one declared operation: authentication and the rate limit its `auth` asks for, validation of
 * path, query, headers and body against its schemas, the handler, and the answer through its response
 * declaration. Errors go to the one error handler, which maps codes to statuses.
 */
export const mountOperation = (app: Express, op: AnyOperation, deps: GatewayDeps): void => {
  if (
    op.idempotency === 'replay' &&
    (op.request.multipart || (op.auth !== 'apiKey' && op.auth !== 'session'))
  ) {
    // The key is the account's; an upload would be stored before the key is looked at.
    throw new Error(`${op.id}: idempotency 'replay' takes an account's operation without a file`);
  }
  const limit = rateLimit({
    perMinute: op.rateLimit
      ? op.rateLimit.perMinute(deps.config)
      : op.auth === 'sandbox'
        ? deps.config.SANDBOX_RATE_LIMIT_PER_MINUTE
        : deps.config.RATE_LIMIT_PER_MINUTE,
    counter: deps.rateCounter,
  });
  const route = expressPath(op.path);
  const authenticated: RequestHandler = (req, res, next) => {
    markRoute(res, route);
    authenticate(op.auth, req, res, deps)
      .then((caller) => {
        res.locals.caller = caller;
        if (op.originCheck === 'ifSent' && req.get('origin') !== undefined) checkOrigin(req, deps);
        if (op.rateLimit) res.locals.rateKey = `${op.rateLimit.bucket}:ip:${clientIp(req)}`;
      })
      .then(() => next(), next);
  };
  const body: RequestHandler[] = op.request.json ? [jsonBody('256kb')] : [];

  const handler: RequestHandler = async (req, res) => {
    const receivedAt = new Date().toISOString();
    // Set by `authenticated` above, from `op.auth`.
    const caller = res.locals.caller as CallerOf<AnyOperation['auth']>;
    const { request } = op;
    const params = request.params ? parseOrThrow(request.params, req.params) : {};
    const query = request.query ? parseOrThrow(request.query, queryOf(req)) : {};
    const headers = request.headers ? parseOrThrow(request.headers, headersOf(req, request.headers)) : {};
    const idempotencyKey = op.idempotency
      ? parseOrThrow(ZIdempotencyHeaders, { 'Idempotency-Key': req.get('Idempotency-Key') })[
          'Idempotency-Key'
        ]
      : undefined;
    let json: unknown;
    if (request.json) {
      const raw: unknown = req.body;
      if (!isPlainObject(raw)) {
        throw new ServiceError('invalid_argument', 'request body must be a JSON object', 'body');
      }
      json = parseOrThrow(request.json, raw);
    }
    let upload: ReceivedUpload | undefined;
    if (request.multipart) {
      const { file } = request.multipart;
      const receiving = receiveUpload(req, {
        blob: deps.blob,
        maxFileBytes: file.maxBytes(
          deps.config,
          caller?.kind === 'apiKey' || caller?.kind === 'session' ? caller : undefined,
        ),
        accept: file.accept,
        logger: deps.logger,
        hash: file.hash?.(headers as Record<string, string | undefined>) ?? false,
        inFlight: deps.metrics.uploads,
      });
      // The body is being read (piped to the multipart parser) from here on.
      countRequestBody(req, res);
      upload = await receiving;
    }
    const inputWith = (
      fields: Record<string, unknown>,
      rawFields: Readonly<Record<string, string>>,
      file: ReceivedFile | undefined,
    ) => ({
      query,
      params,
      headers,
      body: json,
      fields,
      rawFields,
      // There whenever the operation declares a multipart body (checked below), which is when its
      // handler's input has a file.
      file: file as ReceivedFile,
      caller,
      client: { ip: clientIp(req), userAgent: userAgent(req) },
      origin: ownOrigin(req, deps),
      receivedAt,
      accepts: (types: readonly string[]) => req.accepts([...types]),
    });
    if (op.idempotency === 'replay' && idempotencyKey !== undefined) {
      // Checked at mount: 'replay' operations are an account's (API key or dashboard session).
      const { accountId } = caller as { accountId: string };
      const outcome = await deps.idempotency.once(
        {
          accountId,
          operationId: op.id,
          key: idempotencyKey,
          fingerprint: requestFingerprint({ method: op.method, path: op.path, params, query, body: json }),
        },
        () => op.handle(inputWith({}, {}, undefined), deps),
        (result): StoredAnswer | undefined =>
          'json' in result && result.status >= 200 && result.status < 300
            ? {
                status: result.status,
                headers: result.headers ?? {},
                json: publicJson(op, result.status, result.json),
              }
            : undefined,
      );
      if (outcome.replayed) {
        const { answer } = outcome;
        res.status(answer.status).set(answer.headers).set('Idempotent-Replayed', 'true').json(answer.json);
      } else {
        writeResult(op, deps, res, outcome.result);
      }
      return;
    }
    try {
      let fields: Record<string, unknown> = {};
      let file: ReceivedFile | undefined;
      if (request.multipart) {
        if (!upload?.file) {
          throw new ServiceError(
            'invalid_argument',
            `${request.multipart.file.name} is required (${request.multipart.file.description})`,
            request.multipart.file.name,
          );
        }
        file = upload.file;
        fields = parseOrThrow(request.multipart.fields, upload.fields);
      }
      const result = await op.handle(inputWith(fields, upload?.fields ?? {}, file), deps);
      writeResult(op, deps, res, result);
    } catch (err) {
      // An upload nobody took over goes; removing one the signer already removed is harmless.
      if (upload?.file) await deps.blob.remove(upload.file.key).catch(() => undefined);
      throw err;
    }
  };

  app[op.method](route, authenticated, limit, ...body, handler);
};

/** Serve every operation. */
export const mountOperations = (
  app: Express,
  operations: readonly AnyOperation[],
  deps: GatewayDeps,
): void => {
  for (const op of operations) mountOperation(app, op, deps);
};

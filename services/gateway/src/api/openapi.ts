import { z } from 'zod';
import type { TErrorCode } from '@esign/contracts';
import { HTTP_STATUS } from '../http/errors';
import { RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER } from './common-headers';
import { errorsOfAuth, type AnyOperation, type HeaderDeclaration } from './operation';
import { ZErrorResponse } from './error-schema';
import { publicSchemas, ZIdempotencyHeaders } from './public-schemas';
import type { IdempotencyMode } from './idempotency';

type JsonObject = Record<string, unknown>;

export interface OpenApiOptions {
  /** The deployment's public sandbox token, shown in the document. */
  readonly sandboxToken: string;
  /** Where clients reach the gateway (the `servers` entry); relative when unknown. */
  readonly serverUrl?: string;
  readonly version: string;
  /** The events we send (the `webhooks` section), each with its payload's public schema. */
  readonly webhookEvents: readonly WebhookEventDeclaration[];
}

/** An event we POST to webhook endpoints. */
export interface WebhookEventDeclaration {
  readonly type: string;
  readonly summary: string;
  readonly schema: z.ZodType;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** What zod's JSON Schema carries that does not belong in an OpenAPI document, or only adds noise. */
const clean = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(clean);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value as JsonObject)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === 'pattern' && (value as JsonObject).format === 'date-time') continue;
    if ((k === 'maximum' || k === 'minimum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = clean(v);
  }
  return out;
};

const schemaOf = (schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonObject => {
  const id = publicSchemas.get(schema)?.id;
  if (id) return ref(id);
  return clean(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' })) as JsonObject;
};

/** Properties of an object schema, and which of them a client must send. */
const propertiesOf = (schema: z.ZodType) => {
  const output = schemaOf(schema, 'output') as { properties?: Record<string, JsonObject> };
  const input = schemaOf(schema, 'input') as { required?: string[] };
  return { properties: output.properties ?? {}, required: new Set(input.required ?? []) };
};

const parametersOf = (schema: z.ZodType | undefined, location: 'query' | 'path' | 'header') => {
  if (!schema) return [];
  const { properties, required } = propertiesOf(schema);
  return Object.entries(properties).map(([name, property]) => {
    const { description, example, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      ...(example !== undefined ? { example } : {}),
      schema: rest,
    };
  });
};

const headersOf = (headers: Readonly<Record<string, HeaderDeclaration>>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [
      name,
      { description: h.description, required: h.required ?? true, schema: schemaOf(h.schema) },
    ]),
  );

const ERROR_DESCRIPTIONS: Record<TErrorCode, string> = {
  invalid_argument: 'A field is missing or invalid; the error names it',
  unauthenticated:
    'Credential missing, invalid or revoked (the error says which credential this endpoint takes)',
  permission_denied:
    "The account may not do this (API access is a Business plan feature; the plan's documents of this month are used up), or a cookie request failed the CSRF check",
  not_found: 'No such resource for this account',
  conflict:
    'Conflicts with an earlier request (an Idempotency-Key used for a different request, or whose first request is still running)',
  too_large: 'The upload exceeds the size limit',
  rate_limited: 'Too many requests; see Retry-After',
  unavailable:
    'A service behind the gateway did not answer; retry after Retry-After (with the same Idempotency-Key)',
  internal: 'Unexpected failure; retry',
};

const requestBodyOf = (op: AnyOperation) => {
  const { json, multipart, example } = op.request;
  if (json) {
    return {
      required: true,
      content: { 'application/json': { schema: schemaOf(json, 'input'), ...(example ? { example } : {}) } },
    };
  }
  if (multipart) {
    const { properties, required } = propertiesOf(multipart.fields);
    const { file } = multipart;
    // Form fields that hold structured values are sent as JSON text.
    const encoding = Object.fromEntries(
      Object.entries(properties)
        .filter(([, p]) => p.type === 'array' || p.type === 'object')
        .map(([name]) => [name, { contentType: 'application/json' }]),
    );
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: [file.name, ...required],
            properties: {
              [file.name]: {
                type: 'string',
                format: 'binary',
                description: `${file.description}; the type is taken from the content`,
              },
              ...properties,
            },
          },
          ...(Object.keys(encoding).length ? { encoding } : {}),
          ...(example ? { example } : {}),
        },
      },
    };
  }
  return undefined;
};

/** What a retry under the key of an `idempotency: 'replay'` operation gets, and for how long. */
const REPLAY_KEY_DESCRIPTION =
  'Optional, 1-255 visible ASCII characters (a UUID is typical). For 24 hours after the first answer, a retry of the same request (method, path, body) with the same key answers that first 2xx answer again, status, body and headers (Idempotent-Replayed: true), without doing it again; the same key with a different request, or while the first is still running, is a 409. A failed first request leaves no trace: its retry runs.';

/** The `Idempotent-Replayed` header of a 2xx answer of an operation that takes an Idempotency-Key. */
const replayedHeader = (mode: IdempotencyMode): Record<string, HeaderDeclaration> => ({
  'Idempotent-Replayed': {
    description:
      mode === 'replay'
        ? 'true when this is the stored answer of an earlier request with the same Idempotency-Key'
        : 'true when an earlier request with the same Idempotency-Key made this (nothing was done again)',
    schema: z.literal('true'),
    required: false,
  },
});

/** The `Idempotency-Key` parameter of an operation that takes one (unless its headers declare it). */
const idempotencyParametersOf = (op: AnyOperation) => {
  if (!op.idempotency || (op.request.headers && 'Idempotency-Key' in op.request.headers.shape)) return [];
  return parametersOf(ZIdempotencyHeaders, 'header').map((p) =>
    op.idempotency === 'replay' ? { ...p, description: REPLAY_KEY_DESCRIPTION } : p,
  );
};

const responsesOf = (op: AnyOperation) => {
  const responses: JsonObject = {};
  for (const [status, declared] of Object.entries(op.responses)) {
    // A declared header of the operation's own describes it better than the general one.
    const response =
      op.idempotency && Number(status) < 300 && !declared.headers?.['Idempotent-Replayed']
        ? { ...declared, headers: { ...(declared.headers ?? {}), ...replayedHeader(op.idempotency) } }
        : declared;
    const content: JsonObject = {};
    if (response.json) {
      content['application/json'] = {
        schema: schemaOf(response.json),
        ...(response.example !== undefined ? { example: response.example } : {}),
      };
    }
    if (response.html) content['text/html'] = { schema: { type: 'string' } };
    if (response.binary) content[response.binary] = { schema: { type: 'string', format: 'binary' } };
    responses[status] = {
      description: response.description,
      headers: headersOf({ ...(response.headers ?? {}), ...RATE_LIMIT_HEADERS }),
      ...(Object.keys(content).length ? { content } : {}),
    };
  }
  const codes = [
    ...new Set<TErrorCode>([
      ...op.errors,
      // 409: the key used for another request (or, with 'replay', still in progress).
      ...(op.idempotency ? ['conflict' as const] : []),
      ...errorsOfAuth(op.auth, op.method),
    ]),
  ];
  const byStatus = new Map<number, TErrorCode[]>();
  for (const code of codes)
    byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const description = statusCodes.map((c) => ERROR_DESCRIPTIONS[c]).join('; ');
    const declared = responses[String(status)] as
      { description: string; content?: { 'application/json'?: { schema: unknown } } } | undefined;
    const declaredSchema = declared?.content?.['application/json']?.schema;
    if (declared && declaredSchema) {
      // The operation answers this status with a body of its own (a wrong email code, say) as well as
      // the usual error: either may come.
      responses[String(status)] = {
        ...declared,
        description: `${declared.description}; or: ${description}`,
        content: {
          'application/json': { schema: { anyOf: [declaredSchema, schemaOf(ZErrorResponse)] } },
        },
      };
      continue;
    }
    responses[String(status)] = {
      description,
      ...(status === 429 || status === 503 ? { headers: headersOf(RETRY_AFTER_HEADER) } : {}),
      content: { 'application/json': { schema: schemaOf(ZErrorResponse) } },
    };
  }
  return responses;
};

/** The Standard Webhooks headers of every delivery we send. */
const WEBHOOK_HEADERS = [
  [
    'webhook-id',
    'The event id (`evt_…`, as `id` in the body): the same on every retry and replay; de-duplicate on it',
  ],
  [
    'webhook-timestamp',
    'Seconds since the epoch when this attempt was signed; refuse ones more than 5 minutes off',
  ],
  [
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret (base64 after `whsec_`); two during a rotation overlap. Verify with the standardwebhooks package or the SDK’s verifyWebhook',
  ],
] as const;

/** The OpenAPI 3.1 `webhooks` section: one POST we send per event type. */
const webhooksSection = (events: readonly WebhookEventDeclaration[]) =>
  Object.fromEntries(
    events.map((event) => [
      event.type,
      {
        post: {
          summary: event.summary,
          description:
            'Sent to every enabled endpoint of the account subscribed to this type. Answer 2xx within 10 seconds (only the first 4 KiB of the answer are read). Anything else, a timeout or a redirect is retried with backoff over about 3 days; 410 disables the endpoint.',
          tags: ['Webhooks'],
          parameters: WEBHOOK_HEADERS.map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaOf(event.schema) } },
          },
          responses: {
            '2XX': { description: 'Received' },
            '410': { description: 'Gone: the endpoint is disabled and gets nothing more' },
          },
        },
      },
    ]),
  );

const SECURITY = {
  apiKey: [{ apiKey: [] }],
  sandbox: [{ sandboxToken: [] }],
  session: [{ sessionCookie: [] }],
  none: [],
} as const;

/** The OpenAPI 3.1 document of every public operation, generated from their declarations. */
export const buildOpenApiDocument = (operations: readonly AnyOperation[], options: OpenApiOptions) => {
  const paths: Record<string, JsonObject> = {};
  for (const op of operations) {
    const requestBody = requestBodyOf(op);
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.id,
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      security: SECURITY[op.auth],
      ...(op.dashboard || op.auth === 'session' ? { 'x-dashboard': true } : {}),
      ...(op.collection === false ? { 'x-postman': false } : {}),
      parameters: [
        ...parametersOf(op.request.params, 'path'),
        ...parametersOf(op.request.query, 'query'),
        ...parametersOf(op.request.headers, 'header'),
        ...idempotencyParametersOf(op),
      ],
      ...(requestBody ? { requestBody } : {}),
      responses: responsesOf(op),
    };
  }
  const { schemas } = z.toJSONSchema(publicSchemas, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  });
  const tags = [...new Set(operations.map((op) => op.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'esign API',
      version: options.version,
      description: [
        'Sign documents over HTTP and prove it later. Every /api/v1 endpoint takes `Authorization: Bearer <API_KEY>` (a `svc_live_` key of a Business account) unless stated.',
        `The sandbox endpoint takes this deployment's public sandbox token instead: \`${options.sandboxToken}\`.`,
        "The dashboard's endpoints (`/api/auth/*`, `/api/session`, `/api/keys`) take the session cookie set by sign-in instead, never an API key; those that change something also need an `Origin` of this site and the session's `X-CSRF-Token`.",
        'Errors are JSON `{ "error": "…" }` naming the field at fault. Every answer carries `RateLimit-*` headers; 429 and 503 carry `Retry-After`. POSTs that create or send something take an `Idempotency-Key`: retry them with the same key (see each operation for how long a key is kept).',
      ].join('\n\n'),
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags,
    paths,
    webhooks: webhooksSection(options.webhookEvents),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'A live API key, `svc_live_…`, created in the dashboard (Business plan)',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-esign_session',
          description:
            "The dashboard session cookie set by POST /api/auth/sign-in (`esign_session` over plain http in local development). Never accepted on /api/v1. Requests that change something also need an Origin of this site and the session's X-CSRF-Token.",
        },
        sandboxToken: {
          type: 'http',
          scheme: 'bearer',
          description: `The public sandbox token of this deployment: \`${options.sandboxToken}\``,
        },
      },
      schemas: clean(schemas) as JsonObject,
    },
  };
};

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

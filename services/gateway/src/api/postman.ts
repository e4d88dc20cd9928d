import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  headersTest,
  jsonBodyTest,
  MAGIC_BYTES,
  pmTest,
  type HeaderExpectation,
  type JsonSchema,
  type ResolveSchema,
} from './postman-scripts';

/**
 * The Postman Collection v2.1 and environment exports, generated from the OpenAPI document (never
 * written by hand): a folder per tag, `{{baseUrl}}` in every URL, bearer auth from the security
 * schemes, example bodies, and `pm.test` assertions of status, headers and body shape that newman runs.
 *
 * Values carried from one request to the next are found in the document, not named here: a success
 * response header or top-level JSON field of one operation whose name matches a path parameter of
 * another (`X-Audit-Id` and `auditId` both normalise to `auditid`) is stored in a collection variable
 * of the parameter's name, which that parameter then uses (`{{auditId}}`). Only operations under the
 * same security scheme carry values to each other (a sandbox audit ID means nothing to a live
 * endpoint), and the collection's main scheme into public operations (a public check of an audit ID). Folders and requests are ordered so that a value is produced before it is used.
 */

export const POSTMAN_COLLECTION_SCHEMA =
  'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** The sample file every file field of a multipart example sends, relative to newman's working directory. */
export const POSTMAN_SAMPLE_FILE = 'sample.pdf';

/** Where a local stack listens (`pnpm dev`). */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

// --- The part of an OpenAPI 3.1 document the collection is made from ----------------------------

const ZJsonSchema = z.record(z.string(), z.unknown());
const ZMediaType = z.object({ schema: ZJsonSchema.optional(), example: z.unknown().optional() });
const ZParameter = z.object({
  name: z.string(),
  in: z.enum(['query', 'path', 'header', 'cookie']),
  required: z.boolean().optional(),
  description: z.string().optional(),
  example: z.unknown().optional(),
  schema: ZJsonSchema.optional(),
});
const ZHeader = z.object({
  description: z.string().optional(),
  required: z.boolean().optional(),
  schema: ZJsonSchema.optional(),
});
const ZResponse = z.object({
  description: z.string(),
  headers: z.record(z.string(), ZHeader).optional(),
  content: z.record(z.string(), ZMediaType).optional(),
});
const ZSecurity = z.array(z.record(z.string(), z.array(z.string())));
const ZOperation = z.object({
  operationId: z.string(),
  tags: z.array(z.string()).min(1),
  summary: z.string().optional(),
  description: z.string().optional(),
  security: ZSecurity.optional(),
  /** The dashboard's browser API (session cookie, sign-in): not part of the collection. */
  'x-dashboard': z.boolean().optional(),
  parameters: z.array(ZParameter).default([]),
  requestBody: z.object({ content: z.record(z.string(), ZMediaType) }).optional(),
  responses: z.record(z.string(), ZResponse),
});
const ZOpenApi = z.object({
  info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
  tags: z.array(z.object({ name: z.string(), description: z.string().optional() })).default([]),
  security: ZSecurity.default([]),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z
    .object({
      securitySchemes: z
        .record(
          z.string(),
          z.object({ type: z.string(), scheme: z.string().optional(), in: z.string().optional() }),
        )
        .default({}),
      schemas: z.record(z.string(), ZJsonSchema).default({}),
    })
    .default({ securitySchemes: {}, schemas: {} }),
});
type TOpenApi = z.infer<typeof ZOpenApi>;
type TOperation = z.infer<typeof ZOperation>;
type TParameter = z.infer<typeof ZParameter>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

// --- Postman Collection v2.1 -------------------------------------------------------------------

export interface PostmanVariable {
  key: string;
  value: string;
  type?: 'string' | 'default' | 'secret';
  description?: string;
  disabled?: boolean;
}
export interface PostmanAuth {
  type: 'bearer' | 'noauth';
  bearer?: { key: 'token'; value: string; type: 'string' }[];
}
export interface PostmanEvent {
  listen: 'test' | 'prerequest';
  script: { type: 'text/javascript'; exec: string[] };
}
export interface PostmanFormParam {
  key: string;
  type: 'text' | 'file';
  value?: string;
  src?: string;
  contentType?: string;
  description?: string;
  disabled?: boolean;
}
export interface PostmanRequest {
  method: string;
  header: PostmanVariable[];
  url: {
    raw: string;
    host: string[];
    path: string[];
    query?: PostmanVariable[];
    variable?: PostmanVariable[];
  };
  body?:
    | { mode: 'raw'; raw: string; options: { raw: { language: 'json' } } }
    | { mode: 'formdata'; formdata: PostmanFormParam[] };
  auth?: PostmanAuth;
  description?: string;
}
export interface PostmanRequestItem {
  id: string;
  name: string;
  request: PostmanRequest;
  event: PostmanEvent[];
}
export interface PostmanFolder {
  name: string;
  description?: string;
  auth?: PostmanAuth;
  item: PostmanRequestItem[];
}
export interface PostmanCollection {
  info: { _postman_id: string; name: string; version: string; description?: string; schema: string };
  auth?: PostmanAuth;
  variable: PostmanVariable[];
  item: PostmanFolder[];
}

export interface PostmanEnvironment {
  id: string;
  name: string;
  values: { key: string; value: string; type: 'default' | 'secret'; enabled: boolean }[];
  _postman_variable_scope: 'environment';
}

// --- Helpers ------------------------------------------------------------------------------------

/** A UUID-shaped id derived from a name, so that the same document gives the same file. */
const stableId = (name: string): string => {
  const hex = createHash('sha256').update(`esign-postman:${name}`).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** `X-Audit-Id`, `audit_id` and `auditId` are the same name. */
const normalise = (name: string): string =>
  name
    .replace(/^x-/i, '')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text of an example value as a form field or a query parameter carries it. */
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

const bearer = (variable: string): PostmanAuth => ({
  type: 'bearer',
  bearer: [{ key: 'token', value: `{{${variable}}}`, type: 'string' }],
});

/** An example of the same shape that names nothing real: letters become Z, digits 0 (`ZZZ-ZZZZ-…`). */
const unknownValueLike = (example: unknown): string =>
  typeof example === 'string' && example
    ? example.replace(/[A-Za-z]/g, 'Z').replace(/[0-9]/g, '0')
    : 'unknown';

/** Stable topological order: each element after those it depends on, otherwise as given. */
const orderByDependencies = <T>(items: readonly T[], dependsOn: (a: T, b: T) => boolean): T[] => {
  const left = [...items];
  const out: T[] = [];
  while (left.length) {
    const index = left.findIndex((a) => !left.some((b) => b !== a && dependsOn(a, b)));
    // A cycle: keep the given order for what is left.
    if (index < 0) return [...out, ...left];
    out.push(...left.splice(index, 1));
  }
  return out;
};

// --- The document, read ---------------------------------------------------------------------------

interface ReadOperation {
  readonly method: string;
  readonly path: string;
  readonly op: TOperation;
  readonly tag: string;
  /** The security scheme it takes, or undefined for none. */
  readonly scheme: string | undefined;
  /** The lowest 2xx response. */
  readonly success: { status: number; response: TOperation['responses'][string] } | undefined;
}

const readOperations = (doc: TOpenApi): ReadOperation[] => {
  const out: ReadOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    // In the document's order (the order the operations were declared in).
    for (const [method, value] of Object.entries(item)) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      const op = ZOperation.parse(value);
      const security = op.security ?? doc.security;
      const schemes = security.flatMap((requirement) => Object.keys(requirement));
      if (schemes.length > 1)
        throw new Error(`${op.operationId}: one security scheme per operation is supported`);
      const successStatus = Object.keys(op.responses)
        .map(Number)
        .filter((s) => s >= 200 && s < 300)
        .sort((a, b) => a - b)[0];
      const success = successStatus === undefined ? undefined : op.responses[String(successStatus)];
      out.push({
        method,
        path,
        op,
        tag: op.tags[0] ?? 'default',
        scheme: schemes[0],
        success:
          successStatus !== undefined && success ? { status: successStatus, response: success } : undefined,
      });
    }
  }
  return out;
};

const resolverOf =
  (doc: TOpenApi): ResolveSchema =>
  (schema) => {
    let current: JsonSchema = schema;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(current.$ref)?.[1];
      const target = name === undefined ? undefined : doc.components.schemas[name];
      if (!target) throw new Error(`unresolved schema reference ${current.$ref}`);
      current = target;
    }
    return current;
  };

/** The JSON media type of a response, if it has one. */
const jsonContent = (response: TOperation['responses'][string] | undefined) =>
  response?.content?.['application/json'];

/**
 * Patterns and formats of fields named like a header (`X-Audit-Id` ~ `auditId`) anywhere in the
 * document's schemas, when they all agree: the shape a header value has when the header itself only
 * says "string".
 */
const fieldShapesOf = (doc: TOpenApi, resolve: ResolveSchema) => {
  const shapes = new Map<string, Set<string>>();
  const visit = (schema: JsonSchema, depth: number) => {
    if (depth > 4) return;
    const s = resolve(schema);
    if (isRecord(s.properties)) {
      for (const [name, raw] of Object.entries(s.properties)) {
        if (!isRecord(raw)) continue;
        const property = resolve(raw);
        const key = normalise(name);
        const shape = JSON.stringify({ pattern: property.pattern, format: property.format });
        if (property.pattern !== undefined || property.format !== undefined) {
          shapes.set(key, (shapes.get(key) ?? new Set()).add(shape));
        }
        visit(property, depth + 1);
      }
    }
    if (isRecord(s.items)) visit(s.items, depth + 1);
  };
  for (const schema of Object.values(doc.components.schemas)) visit(schema, 0);
  return (headerName: string): { pattern?: string; format?: string } => {
    const found = shapes.get(normalise(headerName));
    if (!found || found.size !== 1) return {};
    return JSON.parse([...found][0] ?? '{}') as { pattern?: string; format?: string };
  };
};

// --- Values carried between requests -------------------------------------------------------------

interface Carry {
  /** The collection variable (the consuming parameter's name). */
  readonly variable: string;
  /** The script expression that reads it from the producer's response. */
  readonly from: string;
}

/** Parameters (path, or required query) that a carried value can fill. */
const fillableParameters = (op: TOperation): TParameter[] =>
  op.parameters.filter((p) => p.in === 'path' || (p.in === 'query' && p.required === true));

const producedBy = (
  read: ReadOperation,
  wanted: ReadonlyMap<string, string>,
  resolve: ResolveSchema,
): Carry[] => {
  const carries = new Map<string, Carry>();
  const headers = read.success?.response.headers ?? {};
  for (const name of Object.keys(headers)) {
    const variable = wanted.get(normalise(name));
    if (variable)
      carries.set(variable, { variable, from: `pm.response.headers.get(${JSON.stringify(name)})` });
  }
  const schema = jsonContent(read.success?.response)?.schema;
  const body = schema ? resolve(schema) : undefined;
  if (body && isRecord(body.properties)) {
    for (const name of Object.keys(body.properties)) {
      const variable = wanted.get(normalise(name));
      if (variable && !carries.has(variable)) {
        carries.set(variable, { variable, from: `pm.response.json()[${JSON.stringify(name)}]` });
      }
    }
  }
  return [...carries.values()];
};

// --- Requests -----------------------------------------------------------------------------------

interface RequestPlan {
  readonly read: ReadOperation;
  /** Parameter values that differ from the example (a negative request). */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly auth?: PostmanAuth;
  readonly expectStatus: number;
  readonly id: string;
  readonly name: string;
}

const urlOf = (
  read: ReadOperation,
  carried: ReadonlyMap<string, string>,
  overrides: Readonly<Record<string, string>>,
) => {
  const byName = new Map(read.op.parameters.map((p) => [p.name, p]));
  const segments = read.path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'));
  const valueOf = (p: TParameter) =>
    overrides[p.name] ??
    (carried.has(p.name) ? `{{${p.name}}}` : asText(p.example ?? p.schema?.example ?? p.schema?.default));
  const variable = read.op.parameters
    .filter((p) => p.in === 'path')
    .map((p) => ({
      key: p.name,
      value: valueOf(p),
      ...(p.description ? { description: p.description } : {}),
    }));
  const query = read.op.parameters
    .filter((p) => p.in === 'query')
    .map((p) => ({
      key: p.name,
      value: valueOf(p),
      ...(p.description ? { description: p.description } : {}),
      // Optional parameters are listed for discovery and sent only when enabled.
      ...(p.required || overrides[p.name] !== undefined ? {} : { disabled: true }),
    }));
  for (const p of byName.values()) {
    if (p.in === 'path' && !segments.includes(`:${p.name}`))
      throw new Error(`${read.op.operationId}: path parameter ${p.name} not in ${read.path}`);
  }
  const enabledQuery = query.filter((q) => !q.disabled);
  const raw = `{{baseUrl}}/${segments.join('/')}${
    enabledQuery.length
      ? `?${enabledQuery.map((q) => `${encodeURIComponent(q.key)}=${q.value}`).join('&')}`
      : ''
  }`;
  return {
    raw,
    host: ['{{baseUrl}}'],
    path: segments,
    ...(query.length ? { query } : {}),
    ...(variable.length ? { variable } : {}),
  };
};

const headersOf = (read: ReadOperation): PostmanVariable[] => {
  const headers: PostmanVariable[] = [];
  for (const p of read.op.parameters.filter((q) => q.in === 'header')) {
    if (p.name.toLowerCase() === 'idempotency-key') {
      // A fresh key per send: a run signs anew; resend with the same key by hand to see a replay.
      headers.push({
        key: p.name,
        value: '{{$guid}}',
        ...(p.description ? { description: p.description } : {}),
      });
    } else {
      headers.push({
        key: p.name,
        value: asText(p.example ?? p.schema?.example),
        ...(p.description ? { description: p.description } : {}),
        ...(p.required ? {} : { disabled: true }),
      });
    }
  }
  const content = read.success?.response.content ?? {};
  const accept = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
  if (accept) headers.push({ key: 'Accept', value: accept });
  if (read.op.requestBody?.content['application/json'])
    headers.push({ key: 'Content-Type', value: 'application/json' });
  return headers;
};

const bodyOf = (read: ReadOperation, resolve: ResolveSchema): PostmanRequest['body'] => {
  const content = read.op.requestBody?.content;
  if (!content) return undefined;
  const json = content['application/json'];
  if (json) {
    return {
      mode: 'raw',
      raw: JSON.stringify(json.example ?? {}, null, 2),
      options: { raw: { language: 'json' } },
    };
  }
  const multipart = content['multipart/form-data'];
  if (!multipart)
    throw new Error(`${read.op.operationId}: request bodies other than JSON and multipart are not supported`);
  const schema = multipart.schema ? resolve(multipart.schema) : {};
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const example = isRecord(multipart.example) ? multipart.example : {};
  return {
    mode: 'formdata',
    formdata: Object.entries(properties).map(([key, property]): PostmanFormParam => {
      const description =
        typeof property.description === 'string' ? { description: property.description } : {};
      if (property.format === 'binary')
        return { key, type: 'file', src: POSTMAN_SAMPLE_FILE, ...description };
      // Structured fields travel as JSON text (the document's multipart encoding).
      const value = example[key] ?? property.default;
      return {
        key,
        type: 'text',
        value: asText(value),
        ...description,
        ...(key in example ? {} : { disabled: true }),
      };
    }),
  };
};

const testsOf = (
  plan: RequestPlan,
  resolve: ResolveSchema,
  carriesOut: readonly Carry[],
  carriedIn: ReadonlyMap<string, string>,
  headerShape: (name: string) => { pattern?: string; format?: string },
): string[] => {
  const { read, expectStatus } = plan;
  const response = read.op.responses[String(expectStatus)];
  if (!response) throw new Error(`${read.op.operationId}: no ${expectStatus} response in the document`);
  const lines = [
    `// Generated from the OpenAPI document: ${read.op.operationId}, response ${expectStatus}.`,
    ...pmTest(`status is ${expectStatus}`, [`  pm.response.to.have.status(${expectStatus});`]),
  ];
  const content = response.content ?? {};
  const mediaType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
  if (mediaType) {
    lines.push(
      ...pmTest(`Content-Type is ${mediaType}`, [
        `  pm.expect(pm.response.headers.get("Content-Type")).to.include(${JSON.stringify(mediaType)});`,
      ]),
    );
  }
  const required: HeaderExpectation[] = Object.entries(response.headers ?? {})
    .filter(([, h]) => h.required !== false)
    .map(([name, h]) => {
      const own = h.schema ? resolve(h.schema) : {};
      const pattern = typeof own.pattern === 'string' ? own.pattern : undefined;
      const format = typeof own.format === 'string' ? own.format : undefined;
      return pattern || format ? { name, pattern, format } : { name, ...headerShape(name) };
    });
  if (required.length) lines.push(...headersTest(required));
  const json = content['application/json']?.schema;
  if (mediaType === 'application/json' && json) {
    const title =
      typeof json.$ref === 'string'
        ? `body matches ${json.$ref.split('/').pop() ?? 'JSON value'}`
        : 'body has the documented shape';
    lines.push(...jsonBodyTest(title, json, resolve));
    const body = resolve(json);
    for (const [name, variable] of carriedIn) {
      const field = isRecord(body.properties)
        ? Object.keys(body.properties).find((k) => normalise(k) === normalise(name))
        : undefined;
      if (field && plan.overrides?.[name] === undefined) {
        lines.push(
          ...pmTest(`${field} is the one carried from an earlier request`, [
            `  pm.expect(pm.response.json()[${JSON.stringify(field)}]).to.eql(pm.collectionVariables.get(${JSON.stringify(variable)}));`,
          ]),
        );
      }
    }
  } else if (mediaType && MAGIC_BYTES[mediaType]) {
    lines.push(
      ...pmTest(`body is ${mediaType}`, [
        `  pm.expect(pm.response.text().slice(0, ${MAGIC_BYTES[mediaType].length})).to.eql(${JSON.stringify(MAGIC_BYTES[mediaType])});`,
      ]),
    );
  }
  if (carriesOut.length) {
    lines.push(
      `if (pm.response.code === ${expectStatus}) {`,
      ...carriesOut.map((c) => `  pm.collectionVariables.set(${JSON.stringify(c.variable)}, ${c.from});`),
      '}',
    );
  }
  return lines;
};

/** The negative request of a folder: an unknown id (404) where an operation takes one, else no credential (401). */
const negativeOf = (reads: readonly ReadOperation[]): RequestPlan | undefined => {
  for (const read of reads) {
    const param = read.op.parameters.find((p) => p.in === 'path');
    if (param && read.op.responses['404']) {
      return {
        read,
        overrides: { [param.name]: unknownValueLike(param.example ?? param.schema?.example) },
        expectStatus: 404,
        id: `${read.op.operationId}.404`,
        name: `${read.op.summary ?? read.op.operationId}: unknown ${param.name} (404)`,
      };
    }
  }
  const protectedReads = reads.filter((r) => r.scheme && r.op.responses['401']);
  // The cheapest to send: one without a body.
  const read = protectedReads.find((r) => !r.op.requestBody) ?? protectedReads[0];
  return read
    ? {
        read,
        auth: { type: 'noauth' },
        expectStatus: 401,
        id: `${read.op.operationId}.401`,
        name: `${read.op.summary ?? read.op.operationId}: no credential (401)`,
      }
    : undefined;
};

export interface PostmanCollectionOptions {
  /** Collection name (default: the document's title). */
  readonly name?: string;
}

/** The Postman Collection v2.1 of an OpenAPI 3.1 document. A pure function: the same document gives the same collection. */
export const buildPostmanCollection = (
  openApiDocument: unknown,
  options: PostmanCollectionOptions = {},
): PostmanCollection => {
  const doc = ZOpenApi.parse(openApiDocument);
  const resolve = resolverOf(doc);
  const headerShape = fieldShapesOf(doc, resolve);
  // The dashboard's browser API is left out (operations marked `x-dashboard`, and any that take only a
  // cookie): a collection runs with an API key, and a cookie session with its CSRF token, or signing
  // up accounts on someone's deployment, is the dashboard's business.
  const reads = readOperations(doc).filter((read) => {
    const scheme = read.scheme ? doc.components.securitySchemes[read.scheme] : undefined;
    return read.op['x-dashboard'] !== true && !(scheme?.type === 'apiKey' && scheme.in === 'cookie');
  });
  for (const read of reads) {
    const scheme = read.scheme ? doc.components.securitySchemes[read.scheme] : undefined;
    if (read.scheme && (scheme?.type !== 'http' || scheme.scheme !== 'bearer')) {
      throw new Error(
        `${read.op.operationId}: only http bearer security schemes are supported (${read.scheme})`,
      );
    }
  }

  // Collection auth: the scheme most operations take; a folder whose operations all take another has its own.
  const counts = new Map<string, number>();
  for (const r of reads) if (r.scheme) counts.set(r.scheme, (counts.get(r.scheme) ?? 0) + 1);
  const collectionScheme = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];

  // Which parameters a value can be carried into, and which operations produce it: the same scheme, or
  // into a public operation (no scheme) from the collection's main scheme (a public check of an audit ID).
  const carriesOf = new Map<ReadOperation, Carry[]>();
  const carriedInto = new Map<ReadOperation, Map<string, string>>();
  /** Which producers each consumer takes values from. */
  const fedBy = new Map<ReadOperation, Set<ReadOperation>>();
  const offersTo = new Map<ReadOperation, Map<string, { producer: ReadOperation; carry: Carry }[]>>();
  for (const consumer of reads) {
    const wanted = new Map(fillableParameters(consumer.op).map((p) => [normalise(p.name), p.name]));
    const offers = new Map<string, { producer: ReadOperation; carry: Carry }[]>();
    for (const producer of reads) {
      const carries = consumer.scheme
        ? producer.scheme === consumer.scheme
        : producer.scheme !== undefined && producer.scheme === collectionScheme;
      if (producer === consumer || !carries) continue;
      for (const carry of producedBy(producer, wanted, resolve)) {
        offers.set(carry.variable, [...(offers.get(carry.variable) ?? []), { producer, carry }]);
      }
    }
    offersTo.set(consumer, offers);
  }
  // Two resources can name a value alike (a signed document's auditId and a send's): a value a
  // resource makes and uses itself stays in that resource; a consumer takes a value from its own
  // resource when it makes one, else from every other operation that makes it.
  const keptHome = new Set<string>();
  for (const [consumer, offers] of offersTo) {
    for (const [variable, list] of offers) {
      for (const { producer } of list) {
        if (producer.tag === consumer.tag) keptHome.add(`${producer.op.operationId} ${variable}`);
      }
    }
  }
  for (const [consumer, offers] of offersTo) {
    for (const [variable, list] of offers) {
      const own = list.filter((offer) => offer.producer.tag === consumer.tag);
      const away = list.filter((offer) => !keptHome.has(`${offer.producer.op.operationId} ${variable}`));
      for (const { producer, carry } of own.length ? own : away.length ? away : list) {
        const carries = carriesOf.get(producer) ?? [];
        if (!carries.some((c) => c.variable === carry.variable)) carries.push(carry);
        carriesOf.set(producer, carries);
        const into = carriedInto.get(consumer) ?? new Map<string, string>();
        into.set(carry.variable, carry.variable);
        carriedInto.set(consumer, into);
        fedBy.set(consumer, (fedBy.get(consumer) ?? new Set()).add(producer));
      }
    }
  }
  const needs = (a: ReadOperation, b: ReadOperation) => fedBy.get(a)?.has(b) === true;

  // Folders in the document's tag order, then producers before consumers.
  const tagOrder = [...new Set([...doc.tags.map((t) => t.name), ...reads.map((r) => r.tag)])].filter((t) =>
    reads.some((r) => r.tag === t),
  );
  const folders = orderByDependencies(
    tagOrder.map((tag) => ({
      tag,
      reads: orderByDependencies(
        // A DELETE after the requests that use what it removes.
        reads
          .filter((r) => r.tag === tag && r.method !== 'delete')
          .concat(reads.filter((r) => r.tag === tag && r.method === 'delete')),
        needs,
      ),
    })),
    (a, b) => a.reads.some((ra) => b.reads.some((rb) => a !== b && needs(ra, rb))),
  );

  const variables = new Map<string, string>();

  const item = folders.map(({ tag, reads: folderReads }): PostmanFolder => {
    const schemes = new Set(folderReads.map((r) => r.scheme).filter((s) => s !== undefined));
    const folderScheme =
      schemes.size === 1 && !schemes.has(collectionScheme ?? '') ? [...schemes][0] : undefined;
    const inherited = folderScheme ?? collectionScheme;
    const negative = negativeOf(folderReads);
    const plans: RequestPlan[] = [
      ...folderReads.map((read) => ({
        read,
        expectStatus: read.success?.status ?? 200,
        id: read.op.operationId,
        name: read.op.summary ?? read.op.operationId,
      })),
      ...(negative ? [negative] : []),
    ];
    const description = doc.tags.find((t) => t.name === tag)?.description;
    return {
      name: tag,
      ...(description ? { description } : {}),
      ...(folderScheme ? { auth: bearer(folderScheme) } : {}),
      item: plans.map((plan): PostmanRequestItem => {
        const { read } = plan;
        if (!read.success) throw new Error(`${read.op.operationId}: no 2xx response in the document`);
        const carriedIn = carriedInto.get(read) ?? new Map<string, string>();
        for (const variable of carriedIn.keys()) {
          const param = read.op.parameters.find((p) => p.name === variable);
          if (!variables.has(variable))
            variables.set(variable, asText(param?.example ?? param?.schema?.example));
        }
        const auth =
          plan.auth ??
          (read.scheme === inherited
            ? undefined
            : read.scheme
              ? bearer(read.scheme)
              : ({ type: 'noauth' } as const));
        const body = bodyOf(read, resolve);
        return {
          id: plan.id,
          name: plan.name,
          request: {
            method: read.method.toUpperCase(),
            header: headersOf(read),
            url: urlOf(read, carriedIn, plan.overrides ?? {}),
            ...(body ? { body } : {}),
            ...(auth ? { auth } : {}),
            ...(read.op.description ? { description: read.op.description } : {}),
          },
          event: [
            {
              listen: 'test',
              script: {
                type: 'text/javascript',
                exec: testsOf(
                  plan,
                  resolve,
                  plan.expectStatus === read.success.status ? (carriesOf.get(read) ?? []) : [],
                  carriedIn,
                  headerShape,
                ),
              },
            },
          ],
        };
      }),
    };
  });

  const name = options.name ?? doc.info.title;
  return {
    info: {
      _postman_id: stableId(`collection:${name}:${doc.info.version}`),
      name,
      version: doc.info.version,
      ...(doc.info.description ? { description: doc.info.description } : {}),
      schema: POSTMAN_COLLECTION_SCHEMA,
    },
    ...(collectionScheme ? { auth: bearer(collectionScheme) } : {}),
    variable: [...variables].map(([key, value]) => ({
      key,
      value,
      type: 'string' as const,
      description: 'Carried from an earlier request of the run',
    })),
    item,
  };
};

export interface PostmanEnvironmentOptions {
  /** The deployment's public sandbox token. */
  readonly sandboxToken: string;
  /** Where clients reach the gateway (default http://localhost:8080). */
  readonly baseUrl?: string | undefined;
  readonly name?: string;
}

/**
 * The Postman environment: `baseUrl`, `sandboxToken` (public) and `apiKey`, empty and marked secret
 * (each user sets their own; a key is never exported).
 */
export const buildPostmanEnvironment = (options: PostmanEnvironmentOptions): PostmanEnvironment => {
  const name = options.name ?? 'esign';
  return {
    id: stableId(`environment:${name}`),
    name,
    values: [
      {
        key: 'baseUrl',
        value: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
        type: 'default',
        enabled: true,
      },
      { key: 'sandboxToken', value: options.sandboxToken, type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
    ],
    _postman_variable_scope: 'environment',
  };
};

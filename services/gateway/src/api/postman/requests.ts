import type { PostmanAuth, PostmanFormParam, PostmanRequest, PostmanVariable } from './format';
import { POSTMAN_SAMPLE_FILE } from './format';
import { isRecord, type ReadOperation, type TParameter } from './document';
import type { JsonSchema, ResolveSchema } from './scripts';

// The requests of the collection: URL, headers and body of each, and each folder's negative request.

export interface RequestPlan {
  readonly read: ReadOperation;
  /** Parameter values that differ from the example (a negative request). */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly auth?: PostmanAuth;
  readonly expectStatus: number;
  readonly id: string;
  readonly name: string;
}

/** Text of an example value as a form field or a query parameter carries it. */
export const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);

/** An example of the same shape that names nothing real: letters become Z, digits 0 (`ZZZ-ZZZZ-…`). */
const unknownValueLike = (example: unknown): string =>
  typeof example === 'string' && example
    ? example.replace(/[A-Za-z]/g, 'Z').replace(/[0-9]/g, '0')
    : 'unknown';

export const urlOf = (
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

export const headersOf = (read: ReadOperation): PostmanVariable[] => {
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

export const bodyOf = (read: ReadOperation, resolve: ResolveSchema): PostmanRequest['body'] => {
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

/** The negative request of a folder: an unknown id (404) where an operation takes one, else no credential (401). */
export const negativeOf = (reads: readonly ReadOperation[]): RequestPlan | undefined => {
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

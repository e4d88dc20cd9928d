import { z } from 'zod';
import type { JsonSchema, ResolveSchema } from './scripts';

// The part of an OpenAPI 3.1 document the collection is made from, read.

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
  'x-postman': z.boolean().optional(),
  parameters: z.array(ZParameter).default([]),
  requestBody: z.object({ content: z.record(z.string(), ZMediaType) }).optional(),
  responses: z.record(z.string(), ZResponse),
});
export const ZOpenApi = z.object({
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
export type TOpenApi = z.infer<typeof ZOpenApi>;
export type TOperation = z.infer<typeof ZOperation>;
export type TParameter = z.infer<typeof ZParameter>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `X-Audit-Id`, `audit_id` and `auditId` are the same name. */
export const normalise = (name: string): string =>
  name
    .replace(/^x-/i, '')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase();

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface ReadOperation {
  readonly method: string;
  readonly path: string;
  readonly op: TOperation;
  readonly tag: string;
  /** The security scheme it takes, or undefined for none. */
  readonly scheme: string | undefined;
  /** The lowest 2xx response. */
  readonly success: { status: number; response: TOperation['responses'][string] } | undefined;
}

export const readOperations = (doc: TOpenApi): ReadOperation[] => {
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

export const resolverOf =
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
export const jsonContent = (response: TOperation['responses'][string] | undefined) =>
  response?.content?.['application/json'];

/**
 * Patterns and formats of fields named like a header (`X-Audit-Id` ~ `auditId`) anywhere in the
 * document's schemas, when they all agree: the shape a header value has when the header itself only
 * says "string".
 */
export const fieldShapesOf = (doc: TOpenApi, resolve: ResolveSchema) => {
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

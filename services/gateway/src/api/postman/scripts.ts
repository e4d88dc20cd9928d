/**
 * The `pm.test` assertions of the Postman collection, generated from the JSON Schemas of the OpenAPI
 * document. Readable assertions (one per field) rather than a schema blob: the sandbox's JSON Schema
 * validator (ajv 6, draft-07) does not read OpenAPI 3.1 schemas, and a failing field should say which.
 */

/** A JSON Schema as the OpenAPI document holds it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Resolves `#/components/schemas/…` references. */
export type ResolveSchema = (schema: JsonSchema) => JsonSchema;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** How deep body assertions go (the body is level 0; `documents[].auditId` is level 2). */
const MAX_DEPTH = 3;

/** A property access that reads well when it can: `body.auditId`, else `body["X-Y"]`. */
const access = (expr: string, name: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? `${expr}.${name}` : `${expr}[${JSON.stringify(name)}]`;

const str = (value: string): string => JSON.stringify(value);

interface Shape {
  /** JSON types allowed (`integer` included); undefined: anything. */
  readonly types: readonly string[] | undefined;
  readonly nullable: boolean;
  /** The one non-null schema, when the shape has one. */
  readonly schema: JsonSchema | undefined;
}

const TYPE_OF_VALUE = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value === 'object'
          ? 'object'
          : typeof value;

/** The types a schema allows, looking through `anyOf` / `oneOf` of simple members. */
const shapeOf = (raw: JsonSchema, resolve: ResolveSchema): Shape => {
  const schema = resolve(raw);
  const members = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(members)) {
    const shapes = members.map((m) => shapeOf(m, resolve));
    if (shapes.some((s) => s.types === undefined))
      return { types: undefined, nullable: false, schema: undefined };
    const types = [...new Set(shapes.flatMap((s) => s.types ?? []))];
    const nonNull = shapes.filter((s) => !(s.types?.length === 1 && s.types[0] === 'null'));
    return {
      types: types.filter((t) => t !== 'null'),
      nullable: types.includes('null') || shapes.some((s) => s.nullable),
      schema: nonNull.length === 1 ? nonNull[0]?.schema : undefined,
    };
  }
  if ('const' in schema) return { types: [TYPE_OF_VALUE(schema.const)], nullable: false, schema };
  const declared = schema.type;
  const types =
    typeof declared === 'string' ? [declared] : Array.isArray(declared) ? (declared as string[]) : undefined;
  if (!types) return { types: undefined, nullable: false, schema };
  return { types: types.filter((t) => t !== 'null'), nullable: types.includes('null'), schema };
};

/**
 * Assertion lines for a value at `expr` (named `label` in messages) against a schema. Uses a helper
 * `is(value, types)` that the caller defines once per script (see IS_HELPER).
 */
const valueChecks = (
  raw: JsonSchema,
  expr: string,
  label: string,
  resolve: ResolveSchema,
  depth: number,
  indent: string,
): string[] => {
  const { types, nullable, schema } = shapeOf(raw, resolve);
  const lines: string[] = [];
  if (types?.length) {
    const allowed = nullable ? [...types, 'null'] : types;
    lines.push(
      `${indent}pm.expect(is(${expr}, ${JSON.stringify(allowed)}), ${str(`${label}: ${allowed.join(' or ')}`)}).to.be.true;`,
    );
  }
  if (!schema || !types || types.length !== 1) return lines;
  const inner: string[] = [];
  const innerIndent = nullable ? `${indent}  ` : indent;
  if ('const' in schema)
    inner.push(`${innerIndent}pm.expect(${expr}, ${str(label)}).to.eql(${JSON.stringify(schema.const)});`);
  if (Array.isArray(schema.enum)) {
    inner.push(`${innerIndent}pm.expect(${JSON.stringify(schema.enum)}, ${str(label)}).to.include(${expr});`);
  }
  if (types[0] === 'string') {
    if (typeof schema.pattern === 'string') {
      inner.push(
        `${innerIndent}pm.expect(${expr}, ${str(label)}).to.match(new RegExp(${str(schema.pattern)}));`,
      );
    }
    if (schema.format === 'date-time') {
      inner.push(
        `${innerIndent}pm.expect(Date.parse(${expr}), ${str(`${label}: date-time`)}).to.not.be.NaN;`,
      );
    }
  }
  if (depth < MAX_DEPTH && types[0] === 'object')
    inner.push(...objectChecks(schema, expr, label, resolve, depth, innerIndent));
  if (depth < MAX_DEPTH && types[0] === 'array' && isRecord(schema.items)) {
    const item = `item${depth + 1}`;
    const itemLines = valueChecks(schema.items, item, `${label}[]`, resolve, depth + 1, `${innerIndent}  `);
    if (itemLines.length) {
      inner.push(`${innerIndent}${expr}.forEach((${item}) => {`, ...itemLines, `${innerIndent}});`);
    }
  }
  if (!inner.length) return lines;
  return nullable
    ? [...lines, `${indent}if (${expr} !== null) {`, ...inner, `${indent}}`]
    : [...lines, ...inner];
};

/** Required properties present with their types; optional ones typed when present; no others when closed. */
const objectChecks = (
  schema: JsonSchema,
  expr: string,
  label: string,
  resolve: ResolveSchema,
  depth: number,
  indent: string,
): string[] => {
  const properties = isRecord(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines: string[] = [];
  const prefix = label === 'body' ? '' : `${label}.`;
  for (const [name, property] of Object.entries(properties)) {
    const at = access(expr, name);
    const checks = valueChecks(
      property,
      at,
      `${prefix}${name}`,
      resolve,
      depth + 1,
      required.has(name) ? indent : `${indent}  `,
    );
    if (required.has(name)) {
      lines.push(`${indent}pm.expect(${expr}, ${str(label)}).to.have.property(${str(name)});`, ...checks);
    } else if (checks.length) {
      lines.push(`${indent}if (${at} !== undefined) {`, ...checks, `${indent}}`);
    }
  }
  if (schema.additionalProperties === false && Object.keys(properties).length) {
    lines.push(
      `${indent}pm.expect(Object.keys(${expr}).filter((k) => !${JSON.stringify(Object.keys(properties))}.includes(k)), ${str(`${label}: undocumented properties`)}).to.be.empty;`,
    );
  }
  return lines;
};

/** Defines `is(value, types)`: JSON Schema types of a value, `integer` included. */
const IS_HELPER = [
  '  const is = (v, types) => types.some((t) =>',
  "    t === 'null' ? v === null : t === 'array' ? Array.isArray(v) : t === 'integer' ? Number.isInteger(v)",
  "      : t === 'object' ? typeof v === 'object' && v !== null && !Array.isArray(v) : typeof v === t);",
];

/** A `pm.test` block. */
export const pmTest = (name: string, body: readonly string[]): string[] => [
  `pm.test(${str(name)}, () => {`,
  ...body,
  '});',
];

/** The test that a JSON body has the documented shape. */
export const jsonBodyTest = (name: string, schema: JsonSchema, resolve: ResolveSchema): string[] =>
  pmTest(name, [
    ...IS_HELPER,
    '  const body = pm.response.json();',
    ...valueChecks(schema, 'body', 'body', resolve, 0, '  '),
  ]);

/**
 * Leading bytes of binary media types, to check a body is what it says. ASCII only: the script reads
 * them through `pm.response.text()`, which decodes UTF-8.
 */
export const MAGIC_BYTES: Readonly<Record<string, string>> = {
  'application/pdf': '%PDF-',
};

export interface HeaderExpectation {
  readonly name: string;
  readonly pattern?: string;
  readonly format?: string;
}

/** The test that required response headers are set (with their pattern or format when known). */
export const headersTest = (headers: readonly HeaderExpectation[]): string[] =>
  pmTest(
    `headers ${headers.map((h) => h.name).join(', ')}`,
    headers.flatMap(({ name, pattern, format }) => {
      const get = `pm.response.headers.get(${str(name)})`;
      return [
        `  pm.expect(${get}, ${str(name)}).to.be.a("string");`,
        ...(pattern ? [`  pm.expect(${get}, ${str(name)}).to.match(new RegExp(${str(pattern)}));`] : []),
        ...(format === 'date-time'
          ? [`  pm.expect(Date.parse(${get}), ${str(`${name}: date-time`)}).to.not.be.NaN;`]
          : []),
      ];
    }),
  );

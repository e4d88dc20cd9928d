import type { Carry } from './carries';
import { isRecord, normalise } from './document';
import type { RequestPlan } from './requests';
import {
  headersTest,
  jsonBodyTest,
  MAGIC_BYTES,
  pmTest,
  type HeaderExpectation,
  type ResolveSchema,
} from './scripts';

// The test script of each request: status, headers, body shape, and the values it carries on.

export const testsOf = (
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

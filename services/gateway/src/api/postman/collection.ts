import { planCarries } from './carries';
import { fieldShapesOf, readOperations, resolverOf, ZOpenApi } from './document';
import {
  bearer,
  POSTMAN_COLLECTION_SCHEMA,
  stableId,
  type PostmanCollection,
  type PostmanFolder,
  type PostmanRequestItem,
} from './format';
import { asText, bodyOf, headersOf, negativeOf, urlOf, type RequestPlan } from './requests';
import { testsOf } from './tests';

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
    return (
      read.op['x-dashboard'] !== true &&
      read.op['x-postman'] !== false &&
      !(scheme?.type === 'apiKey' && scheme.in === 'cookie')
    );
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

  const { carriesOf, carriedInto, needs } = planCarries(reads, collectionScheme, resolve);

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

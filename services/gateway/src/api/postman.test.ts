import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Script } from 'node:vm';
import { Collection } from 'postman-collection';
import { describe, expect, it } from 'vitest';
import { ZGatewayConfig } from '../config';
import { apiDescriptionFiles, openApiFor } from '../endpoints/developer-resources';
import { buildPostmanCollection } from './postman/collection';
import { buildPostmanEnvironment } from './postman/environment';
import {
  POSTMAN_COLLECTION_SCHEMA,
  POSTMAN_SAMPLE_FILE,
  type PostmanCollection,
  type PostmanRequestItem,
} from './postman/format';

const ROOT = resolve(import.meta.dirname, '../../../..');
const config = ZGatewayConfig.parse({});
const openApi = openApiFor(config);
const sut = buildPostmanCollection(openApi);

const operationsOf = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  );
/** The operations a collection holds: the document's, without the dashboard's browser API. */
const apiOperationsOf = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  operationsOf(doc).filter(({ op }) => op['x-dashboard'] !== true && op['x-postman'] !== false);
const requestsOf = (collection: PostmanCollection): PostmanRequestItem[] =>
  collection.item.flatMap((folder) => folder.item);
const requestById = (collection: PostmanCollection, id: string): PostmanRequestItem => {
  const found = requestsOf(collection).find((r) => r.id === id);
  if (!found) throw new Error(`no request ${id}`);
  return found;
};
const scriptOf = (item: PostmanRequestItem): string =>
  item.event.find((e) => e.listen === 'test')?.script.exec.join('\n') ?? '';

describe('the committed API description files', () => {
  it('are what the gateway generates (run `pnpm api:export` after changing an operation)', () => {
    const files = apiDescriptionFiles();
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(['docs/openapi.json', 'postman/collection.json', 'postman/environment.json']),
    );
    for (const [path, content] of Object.entries(files)) {
      const committed = resolve(ROOT, path);
      expect(existsSync(committed), `${path} is committed`).toBe(true);
      // Compared as JSON: the committed files are formatted by prettier.
      expect(JSON.parse(readFileSync(committed, 'utf8')), path).toEqual(JSON.parse(content));
    }
  });
});

describe('buildPostmanCollection', () => {
  it('is a Postman Collection v2.1 with a folder per tag, in which every URL starts with {{baseUrl}}', () => {
    expect(sut.info.schema).toBe(POSTMAN_COLLECTION_SCHEMA);
    expect(sut.info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    const apiTags = new Set(apiOperationsOf(openApi).map(({ op }) => (op.tags as string[])[0]));
    expect(sut.item.map((f) => f.name).sort()).toEqual([...apiTags].sort());
    for (const item of requestsOf(sut)) {
      expect(item.request.url.raw, item.id).toMatch(/^\{\{baseUrl\}\}\//);
      expect(item.request.url.host, item.id).toEqual(['{{baseUrl}}']);
    }
  });

  it('leaves out the dashboard operations (session cookie, sign-in and sign-up)', () => {
    const dashboard = operationsOf(openApi).filter(({ op }) => op['x-dashboard'] === true);
    expect(dashboard.map(({ op }) => op.operationId)).toEqual(
      expect.arrayContaining(['signIn', 'signUp', 'listApiKeys', 'createApiKey', 'revokeApiKey']),
    );
    const ids = new Set(requestsOf(sut).map((r) => r.id.replace(/\.\d{3}$/, '')));
    for (const { op } of dashboard)
      expect(ids.has(op.operationId as string), op.operationId as string).toBe(false);
    // Cookie-only operations are left out even without the mark.
    const unmarked = structuredClone(openApi) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const item of Object.values(unmarked.paths))
      for (const op of Object.values(item)) delete op['x-dashboard'];
    const collection = buildPostmanCollection(unmarked);
    expect(requestsOf(collection).map((r) => r.id)).not.toContain('listApiKeys');
    expect(requestsOf(collection).map((r) => r.id)).toContain('signIn');
  });

  it('has every operation of the document, in the folder of its tag, with its method and path', () => {
    const operations = apiOperationsOf(openApi);
    expect(operations.length).toBeGreaterThanOrEqual(7);
    for (const { path, method, op } of operations) {
      const id = op.operationId as string;
      const folder = sut.item.find((f) => f.item.some((i) => i.id === id));
      expect(folder?.name, id).toBe((op.tags as string[])[0]);
      const item = requestById(sut, id);
      expect(item.request.method).toBe(method.toUpperCase());
      expect(`/${item.request.url.path.join('/')}`).toBe(path.replace(/\{(\w+)\}/g, ':$1'));
    }
  });

  it('authenticates with {{apiKey}}, the sandbox folder with {{sandboxToken}}, and the field reference with none', () => {
    expect(sut.auth).toEqual({
      type: 'bearer',
      bearer: [{ key: 'token', value: '{{apiKey}}', type: 'string' }],
    });
    const sandbox = sut.item.find((f) => f.name === 'Sandbox');
    expect(sandbox?.auth?.bearer?.[0]?.value).toBe('{{sandboxToken}}');
    expect(sandbox?.item.find((i) => i.id === 'sandboxSign')?.request.auth).toBeUndefined();
    expect(requestById(sut, 'getSignReference').request.auth).toEqual({ type: 'noauth' });
    // Live operations inherit the collection's key.
    expect(requestById(sut, 'signDocument').request.auth).toBeUndefined();
    expect(requestById(sut, 'getDocument').request.auth).toBeUndefined();
  });

  it('sends the example bodies: JSON raw, multipart with the sample file and positions as JSON text', () => {
    expect(requestById(sut, 'sandboxSign').request.body).toEqual({
      mode: 'raw',
      raw: JSON.stringify({ document_url: 'https://example.com/contract.pdf' }, null, 2),
      options: { raw: { language: 'json' } },
    });
    const body = requestById(sut, 'signDocument').request.body;
    if (body?.mode !== 'formdata') throw new Error('sign is multipart');
    const byKey = new Map(body.formdata.map((f) => [f.key, f]));
    expect(byKey.get('file')).toMatchObject({ type: 'file', src: POSTMAN_SAMPLE_FILE });
    expect(
      readFileSync(resolve(ROOT, 'postman', POSTMAN_SAMPLE_FILE))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(byKey.get('signerName')).toMatchObject({ type: 'text', value: 'Ada Lovelace' });
    expect(JSON.parse(byKey.get('positions')?.value ?? '')).toEqual([{ x: 60, y: 80, page: 0, width: 30 }]);
    // Fields the example leaves out are listed, disabled.
    expect(byKey.get('sigColor')).toMatchObject({ disabled: true, value: '#1e3a8a' });
  });

  it('gives every operation with a request body an example to send', () => {
    for (const { op } of operationsOf(openApi)) {
      const content = (op.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)
        ?.content;
      for (const [type, media] of Object.entries(content ?? {})) {
        expect(media.example, `${String(op.operationId)} ${type}`).toBeDefined();
      }
    }
  });

  it('sends a fresh Idempotency-Key on idempotent operations', () => {
    const headers = requestById(sut, 'signDocument').request.header;
    expect(headers.find((h) => h.key === 'Idempotency-Key')?.value).toBe('{{$guid}}');
    expect(requestById(sut, 'listDocuments').request.header.some((h) => h.key === 'Idempotency-Key')).toBe(
      false,
    );
  });

  it('tests status and shape of every request, in scripts that parse', () => {
    for (const item of requestsOf(sut)) {
      const script = scriptOf(item);
      expect(script, item.id).toMatch(/pm\.test\("status is \d{3}"/);
      expect(() => new Script(script), item.id).not.toThrow();
    }
    const sign = scriptOf(requestById(sut, 'signDocument'));
    expect(sign).toContain('pm.response.to.have.status(200)');
    expect(sign).toContain('.to.include("application/pdf")');
    // The audit-ID shape comes from the document's schemas.
    expect(sign).toContain(
      'pm.expect(pm.response.headers.get("X-Audit-Id"), "X-Audit-Id").to.match(new RegExp("^[A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$"));',
    );
    const list = scriptOf(requestById(sut, 'listDocuments'));
    expect(list).toContain('pm.expect(is(body.documents, ["array"]), "documents: array").to.be.true;');
    expect(list).toContain('body.documents.forEach(');
  });

  it('carries the audit ID from sign to the document request, signing first', () => {
    expect(scriptOf(requestById(sut, 'signDocument'))).toContain(
      'pm.collectionVariables.set("auditId", pm.response.headers.get("X-Audit-Id"));',
    );
    const get = requestById(sut, 'getDocument');
    expect(get.request.url.variable).toEqual([
      expect.objectContaining({ key: 'auditId', value: '{{auditId}}' }),
    ]);
    expect(scriptOf(get)).toContain('pm.collectionVariables.get("auditId")');
    const folders = sut.item.map((f) => f.name);
    expect(folders.indexOf('Signing')).toBeLessThan(folders.indexOf('Documents'));
    expect(sut.variable.map((v) => v.key)).toEqual(
      expect.arrayContaining(['auditId', 'sendId', 'webhookId', 'eventId']),
    );
    // A sandbox audit ID means nothing to a live endpoint: the sandbox carries nothing.
    expect(scriptOf(requestById(sut, 'sandboxSign'))).not.toContain('collectionVariables.set');
  });

  it('carries the new webhook and the test event on, and removes the webhook last', () => {
    expect(scriptOf(requestById(sut, 'createWebhook'))).toContain(
      'pm.collectionVariables.set("webhookId", pm.response.headers.get("X-Webhook-Id"));',
    );
    expect(scriptOf(requestById(sut, 'sendTestWebhook'))).toContain(
      'pm.collectionVariables.set("eventId", pm.response.json()["eventId"]);',
    );
    const folder = sut.item.find((f) => f.name === 'Webhooks');
    const ids = folder?.item.map((i) => i.id).filter((id) => !/\.\d{3}$/.test(id)) ?? [];
    expect(ids[0]).toBe('createWebhook');
    expect(ids.indexOf('sendTestWebhook')).toBeLessThan(ids.indexOf('replayWebhookEvent'));
    expect(ids.at(-1)).toBe('deleteWebhook');
  });

  it('has one negative request per resource with its own tests', () => {
    const unknown = requestById(sut, 'getDocument.404');
    // The example's shape with letters Z and digits 0: well-formed, never issued (no 0 in audit IDs).
    expect(unknown.request.url.variable?.[0]?.value).toBe('ZZZ-0ZZ0-Z0ZZ-0Z0Z');
    expect(scriptOf(unknown)).toContain('pm.response.to.have.status(404)');
    expect(scriptOf(unknown)).toContain('"error: string"');
    const noKey = requestById(sut, 'sandboxSign.401');
    expect(noKey.request.auth).toEqual({ type: 'noauth' });
    expect(scriptOf(noKey)).toContain('pm.response.to.have.status(401)');
    for (const folder of sut.item) {
      expect(folder.item.filter((i) => /\.\d{3}$/.test(i.id)).length, folder.name).toBe(1);
    }
  });

  it('is deterministic: the same document gives the same collection, ids derived from names', () => {
    expect(buildPostmanCollection(openApiFor(config))).toEqual(sut);
    expect(sut.info._postman_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(JSON.stringify(sut)).not.toMatch(/20\d\d-\d\d-\d\dT\d\d:\d\d/);
  });

  it('loads in the Postman Collection SDK (the one newman runs) without losing requests or tests', () => {
    const loaded = new Collection(sut as unknown as ConstructorParameters<typeof Collection>[0]);
    const json = loaded.toJSON() as unknown as PostmanCollection;
    expect(json.info.schema).toBe(POSTMAN_COLLECTION_SCHEMA);
    const items = requestsOf(json);
    expect(items.map((i) => i.id)).toEqual(requestsOf(sut).map((i) => i.id));
    for (const [i, item] of items.entries()) {
      const original = requestsOf(sut)[i];
      expect(item.request.method).toBe(original?.request.method);
      expect(item.event[0]?.script.exec).toEqual(original?.event[0]?.script.exec);
    }
    const get = loaded.oneDeep('getDocument');
    // The path variable takes the carried value.
    expect(get?.request.url.getPath()).toBe('/api/v1/documents/{{auditId}}');
    expect(get?.getAuth()?.type).toBe('bearer');
  });

  it('stays generic: an operation added later with the same id in its body is carried to, and ordered after', () => {
    // A later "send" operation answers { auditId } and a "status" operation of another tag, listed
    // first, takes it as a path parameter.
    const doc = structuredClone(openApi) as typeof openApi & {
      paths: Record<string, Record<string, unknown>>;
    };
    const ok = (schema: unknown) => ({
      description: 'ok',
      content: { 'application/json': { schema } },
    });
    doc.tags = [{ name: 'Status' }, ...doc.tags, { name: 'Sending' }];
    doc.paths['/api/v1/documents/{auditId}/status'] = {
      get: {
        operationId: 'getStatus',
        tags: ['Status'],
        security: [{ apiKey: [] }],
        parameters: [{ name: 'auditId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': ok({ type: 'object', properties: { state: { type: 'string', enum: ['sent', 'signed'] } } }),
        },
      },
    };
    doc.paths['/api/v1/send'] = {
      post: {
        operationId: 'sendForSigning',
        tags: ['Sending'],
        security: [{ apiKey: [] }],
        requestBody: { content: { 'application/json': { example: { to: 'ada@example.com' } } } },
        responses: {
          '201': ok({
            type: 'object',
            required: ['auditId'],
            properties: { auditId: { type: 'string', pattern: '^ESG-' } },
          }),
        },
      },
    };
    const collection = buildPostmanCollection(doc);
    const folders = collection.item.map((f) => f.name);
    expect(folders.indexOf('Sending')).toBeLessThan(folders.indexOf('Status'));
    expect(folders.indexOf('Signing')).toBeLessThan(folders.indexOf('Status'));
    const send = scriptOf(requestById(collection, 'sendForSigning'));
    expect(send).toContain('pm.response.to.have.status(201)');
    expect(send).toContain('pm.collectionVariables.set("auditId", pm.response.json()["auditId"]);');
    expect(requestById(collection, 'getStatus').request.url.raw).toBe(
      '{{baseUrl}}/api/v1/documents/:auditId/status',
    );
    expect(requestById(collection, 'getStatus').request.url.variable?.[0]?.value).toBe('{{auditId}}');
    expect(scriptOf(requestById(collection, 'getStatus'))).toContain('.to.include(body.state)');
  });
});

describe('buildPostmanEnvironment', () => {
  it('has baseUrl, the public sandbox token, and apiKey empty and secret', () => {
    const sut = buildPostmanEnvironment({ sandboxToken: 'svc_sandbox_public_demo' });
    expect(sut.values).toEqual([
      { key: 'baseUrl', value: 'http://localhost:8080', type: 'default', enabled: true },
      { key: 'sandboxToken', value: 'svc_sandbox_public_demo', type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
    ]);
    expect(sut._postman_variable_scope).toBe('environment');
  });

  it('takes the deployment base URL (PUBLIC_BASE_URL) without a trailing slash', () => {
    const sut = buildPostmanEnvironment({
      sandboxToken: 'svc_sandbox_x1234567',
      baseUrl: 'https://esign.example/',
    });
    expect(sut.values.find((v) => v.key === 'baseUrl')?.value).toBe('https://esign.example');
    expect(sut.values.find((v) => v.key === 'sandboxToken')?.value).toBe('svc_sandbox_x1234567');
  });
});

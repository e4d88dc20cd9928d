import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import newman, { type NewmanRunOptions, type NewmanRunSummary } from 'newman';
import { describe, expect, it } from 'vitest';
import { auth, baseUrl, createAccount } from './harness';

/** The committed exports (what `pnpm api:export` writes) and the sample file the collection uploads. */
const POSTMAN_DIR = resolve(import.meta.dirname, '../../postman');

const readJson = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(join(POSTMAN_DIR, name), 'utf8')) as unknown;

const run = (options: NewmanRunOptions): Promise<NewmanRunSummary> =>
  new Promise((done, fail) => {
    newman.run(options, (err, summary) => (err ? fail(err) : done(summary)));
  });

interface CollectionFile {
  item: { name: string; item: { id: string; name: string }[] }[];
}

describe('Postman exports', () => {
  it('are served by the gateway exactly as committed under postman/', async () => {
    for (const name of ['collection.json', 'environment.json']) {
      const res = await fetch(`${baseUrl}/postman/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toMatch(/^application\/json/);
      expect(await res.json(), name).toEqual(await readJson(name));
    }
  });

  it('the committed collection runs green with newman against the stack, every request with passing tests', async () => {
    const { apiKey } = await createAccount('business');
    const collection = (await readJson('collection.json')) as CollectionFile;
    const requests = collection.item.flatMap((folder) => folder.item.map((item) => item.name));

    const summary = await run({
      collection,
      environment: (await readJson('environment.json')) as NewmanRunOptions['environment'],
      envVar: [
        { key: 'baseUrl', value: baseUrl },
        { key: 'apiKey', value: apiKey },
      ],
      workingDir: POSTMAN_DIR,
      reporters: [],
      timeoutRequest: 30_000,
    });

    const failures = summary.run.failures.map(
      (f) => `${f.source?.name ?? '?'}: ${f.error.name}: ${f.error.message}`,
    );
    expect(failures).toEqual([]);

    // Every request ran once, in the collection's order, and each one asserted something that passed.
    const executed = summary.run.executions.map((e) => e.item.name);
    expect(executed).toEqual(requests);
    for (const execution of summary.run.executions) {
      const passed = (execution.assertions ?? []).filter((a) => !a.error);
      expect(passed.length, execution.item.name).toBeGreaterThan(0);
      expect(execution.response?.code, execution.item.name).toBeGreaterThan(0);
    }
    expect(summary.run.stats.assertions.failed).toBe(0);
    expect(summary.run.stats.requests.total).toBe(requests.length);

    // The audit ID of the sign request was carried into the document request, and is a real document.
    const executionOf = (id: string) => summary.run.executions.find((e) => e.item.id === id);
    const auditId: unknown = executionOf('signDocument')?.response?.headers.get('X-Audit-Id');
    expect(auditId).toMatch(/^ESG-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(executionOf('getDocument')?.request.url.getPath()).toBe(`/api/v1/documents/${String(auditId)}`);
    const document = await fetch(`${baseUrl}/api/v1/documents/${String(auditId)}`, { headers: auth(apiKey) });
    expect(document.status).toBe(200);
    expect(((await document.json()) as { auditId: string }).auditId).toBe(auditId);
  });

  it('its tests fail when the API does not answer as documented (here: a key that does not exist)', async () => {
    const summary = await run({
      collection: (await readJson('collection.json')) as NewmanRunOptions['collection'],
      environment: (await readJson('environment.json')) as NewmanRunOptions['environment'],
      envVar: [
        { key: 'baseUrl', value: baseUrl },
        { key: 'apiKey', value: `svc_live_${'0'.repeat(32)}` },
      ],
      workingDir: POSTMAN_DIR,
      reporters: [],
    });
    const failed = new Set(summary.run.failures.map((f) => f.source?.name));
    // Every request that needs the key fails its status test; the ones that need none still pass.
    expect(failed).toContain('Sign a document');
    expect(failed).toContain('List signed documents');
    expect(failed).not.toContain('Mock signing (sandbox)');
    expect(failed).not.toContain('Field reference of POST /api/v1/sign');
  });
});

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_DIR, generateSdkFiles, readOpenApi } from '../scripts/generate.js';
import { EsignClient, OPERATIONS, SDK_VERSION } from '../src/index.js';

describe('generated types', () => {
  it('are what docs/openapi.json generates now (run `pnpm sdk:generate` after `pnpm api:export`)', async () => {
    const fresh = await generateSdkFiles(await readOpenApi());

    expect(Object.keys(fresh).sort()).toEqual(['api.ts', 'operations.ts']);
    for (const [name, content] of Object.entries(fresh)) {
      expect(await readFile(GENERATED_DIR + name, 'utf8'), `src/generated/${name}`).toBe(content);
    }
  });

  it('list every v1 operation of the document, and the client has a method for each', async () => {
    const doc = await readOpenApi();
    const ids = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([, item]) => Object.values(item).map((op) => (op as { operationId: string }).operationId));
    expect(ids).toContain('signDocument');

    expect(Object.keys(OPERATIONS).sort()).toEqual([...ids].sort());
    const client = new EsignClient({ apiKey: 'svc_live_x', baseUrl: 'http://127.0.0.1:9' });
    const missing = ids.filter(
      (id) => typeof (client as unknown as Record<string, unknown>)[id] !== 'function',
    );
    expect(missing, 'operations without an EsignClient method').toEqual([]);
  });

  it('mark the operations that take an Idempotency-Key: those that create or send, and no GET', () => {
    for (const id of [
      'signDocument',
      'sendForSigning',
      'createEnvelope',
      'cancelEnvelope',
      'createSigningUrl',
      'cancelSend',
      'resendSend',
      'createWebhook',
      'rotateWebhookSecret',
      'sendTestWebhook',
      'replayWebhookEvent',
    ] as const) {
      expect(OPERATIONS[id].idempotent, id).toBe(true);
    }
    expect(OPERATIONS.updateWebhook.idempotent).toBe(false);
    expect(OPERATIONS.setEmbedOrigins.idempotent).toBe(false);
    expect(Object.values(OPERATIONS).filter((info) => info.method === 'GET' && info.idempotent)).toEqual([]);
  });
});

describe('SDK_VERSION', () => {
  it('is the version in package.json', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };

    expect(SDK_VERSION).toBe(pkg.version);
  });
});

import { describe, expect, it } from 'vitest';
import { ZGatewayConfig } from '../config';
import { openApiFor } from '../endpoints/developer-resources';
import { OPERATIONS } from '../endpoints/index';

const doc = openApiFor(ZGatewayConfig.parse({}));

interface DocumentedOperation {
  parameters: { name: string; in: string; description?: string }[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
}
const operation = (path: string, method: string) =>
  (doc.paths as Record<string, Record<string, DocumentedOperation>>)[path]?.[method];

/**
 * POSTs of an account that create or send nothing, or answer a file, and so take no Idempotency-Key;
 * a new POST must either be listed here or declare `idempotency`.
 */
const POSTS_WITHOUT_KEY = new Set(['generateTemplate', 'signOut']);

describe('idempotency in the OpenAPI document', () => {
  it("documents an operation layer's key: the header, Idempotent-Replayed on success, and the 409", () => {
    const create = operation('/api/v1/webhooks', 'post');

    const key = create?.parameters.find((p) => p.name === 'Idempotency-Key');
    expect(key).toMatchObject({ in: 'header', description: expect.stringContaining('24 hours') as unknown });
    expect(Object.keys(create?.responses['201']?.headers ?? {})).toContain('Idempotent-Replayed');
    expect(create?.responses['409']).toBeDefined();
    expect(operation('/api/webhooks', 'post')?.parameters.map((p) => p.name)).toContain('Idempotency-Key');
    expect(operation('/api/v1/webhooks/{webhookId}', 'patch')?.parameters.map((p) => p.name)).not.toContain(
      'Idempotency-Key',
    );
  });

  it("documents a domain's key once, as the operation declares it", () => {
    const keys = operation('/api/v1/send', 'post')?.parameters.filter((p) => p.name === 'Idempotency-Key');

    expect(keys).toHaveLength(1);
  });

  it('declares a key on every POST of an account (API key or session) but the listed ones', () => {
    const missing = OPERATIONS.filter(
      (op) =>
        op.method === 'post' &&
        (op.auth === 'apiKey' || op.auth === 'session') &&
        op.idempotency === undefined &&
        !POSTS_WITHOUT_KEY.has(op.id),
    ).map((op) => op.id);

    expect(missing).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { EsignApiError, EsignClient, EsignConnectionError, type EsignClientOptions } from '../src/index.js';
import { parseRetryAfter, retryDelayMs } from '../src/retry.js';
import { json, signedPdf, startLocalServer, type Answer, type LocalServer } from './local-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const SIGN = {
  file: PDF,
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada',
} as const;

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const serve = async (answer: Answer, options: Partial<EsignClientOptions> = {}) => {
  server = await startLocalServer(answer);
  const sut = new EsignClient({
    apiKey: 'svc_live_test',
    baseUrl: server.baseUrl,
    retryBaseDelayMs: 100,
    ...options,
  });
  return { sut, requests: server.requests };
};

const gapsOf = (requests: readonly { at: number }[]) =>
  requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? r.at));

describe('retries', () => {
  it('retries a 503 after Retry-After seconds with the same Idempotency-Key, then returns the signed document', async () => {
    const { sut, requests } = await serve((_req, res, i) =>
      i < 2
        ? json(res, 503, { error: 'signing is unavailable, retry' }, { 'Retry-After': '1' })
        : signedPdf(res),
    );

    const signed = await sut.signDocument(SIGN);

    expect(requests).toHaveLength(3);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
    expect(signed.idempotencyKey).toBe(keys[0]);
    // Never earlier than Retry-After (timer granularity allows a few ms).
    for (const gap of gapsOf(requests)) expect(gap).toBeGreaterThanOrEqual(990);
    expect(signed.auditId).toBe('ESG-AAAA-BBBB-CCCC');
  });

  it('backs off exponentially with jitter on 429 without Retry-After', async () => {
    const { sut, requests } = await serve((_req, res, i) =>
      i < 2 ? json(res, 429, { error: 'rate limit exceeded' }) : json(res, 200, { templates: [] }),
    );

    const list = await sut.listTemplates();

    expect(list).toEqual({ templates: [] });
    const [first, second] = gapsOf(requests);
    // retryBaseDelayMs 100: the first wait is 50-100 ms, the second 100-200 ms (the exact formula is
    // tested below; the upper bounds here leave room for a busy machine).
    expect(first).toBeGreaterThanOrEqual(45);
    expect(first).toBeLessThan(600);
    expect(second).toBeGreaterThanOrEqual(95);
    expect(second).toBeLessThan(800);
  });

  it('gives up after maxRetries and throws the last answer as an EsignApiError', async () => {
    const { sut, requests } = await serve(
      (_req, res) => json(res, 503, { error: 'documents are unavailable, retry' }, { 'Retry-After': '0' }),
      { maxRetries: 3 },
    );

    const error = await sut.listDocuments().catch((err: unknown) => err);

    expect(requests).toHaveLength(4);
    expect(error).toBeInstanceOf(EsignApiError);
    expect(error).toMatchObject({
      name: 'EsignApiError',
      status: 503,
      message: 'documents are unavailable, retry',
      retryAfter: 0,
      body: '{"error":"documents are unavailable, retry"}',
      operationId: 'listDocuments',
    });
  });

  it('does not retry other errors, and names the field from the error body', async () => {
    const { sut, requests } = await serve((_req, res) =>
      json(res, 400, { error: 'limit must be an integer from 1 to 100' }),
    );

    const error = await sut.listDocuments({ limit: 500 }).catch((err: unknown) => err);

    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe('/api/v1/documents?limit=500');
    expect(error).toBeInstanceOf(EsignApiError);
    expect(error).toMatchObject({
      status: 400,
      message: 'limit must be an integer from 1 to 100',
      retryAfter: undefined,
    });
  });

  it('does not wait for a Retry-After longer than a minute: the caller gets it to schedule', async () => {
    const { sut, requests } = await serve((_req, res) =>
      json(res, 429, { error: 'slow down' }, { 'Retry-After': '3600' }),
    );

    const error = await sut.listTemplates().catch((err: unknown) => err);

    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 429, retryAfter: 3600 });
  });

  it('reuses a caller-given Idempotency-Key on every attempt, and generates a new key per call otherwise', async () => {
    const { sut, requests } = await serve((_req, res, i) =>
      i === 0 ? json(res, 503, { error: 'retry' }, { 'Retry-After': '0' }) : signedPdf(res),
    );

    const given = await sut.signDocument(SIGN, { idempotencyKey: 'order-42' });
    const fresh1 = await sut.signDocument(SIGN);
    const fresh2 = await sut.signDocument(SIGN);

    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([
      'order-42',
      'order-42',
      fresh1.idempotencyKey,
      fresh2.idempotencyKey,
    ]);
    expect(given.idempotencyKey).toBe('order-42');
    expect(fresh1.idempotencyKey).not.toBe(fresh2.idempotencyKey);
  });

  it('sends an Idempotency-Key only to operations the document marks idempotent', async () => {
    const { sut, requests } = await serve((req, res) =>
      req.url === '/api/v1/sandbox/sign'
        ? json(res, 200, { sandbox: true })
        : json(res, 200, { templates: [] }),
    );

    await sut.listTemplates();
    await sut.sandboxSign({ document_url: 'https://example.com/a.pdf' });

    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
    expect(requests[1]?.headers['content-type']).toBe('application/json');
    expect(requests[1]?.body.toString()).toBe('{"document_url":"https://example.com/a.pdf"}');
  });

  it('retries a dropped connection for a request safe to repeat (same key), not for other POSTs', async () => {
    const { sut, requests } = await serve((req, res, i) => {
      if (i === 0 || req.url === '/api/v1/templates/generate') {
        res.socket?.destroy();
        return;
      }
      signedPdf(res);
    });

    const signed = await sut.signDocument(SIGN);
    const error = await sut.generateTemplate({ slug: 'nda', fields: {} }).catch((err: unknown) => err);

    expect(requests.map((r) => r.url)).toEqual([
      '/api/v1/sign',
      '/api/v1/sign',
      '/api/v1/templates/generate',
    ]);
    expect(requests[0]?.headers['idempotency-key']).toBe(signed.idempotencyKey);
    expect(requests[1]?.headers['idempotency-key']).toBe(signed.idempotencyKey);
    expect(error).toBeInstanceOf(EsignConnectionError);
    expect(error).toMatchObject({
      name: 'EsignConnectionError',
      operationId: 'generateTemplate',
      timedOut: false,
    });
  });

  it('times out an attempt after timeoutMs, retries a GET, and reports the timeout', async () => {
    const { sut, requests } = await serve(() => undefined /* never answers */, {
      timeoutMs: 150,
      maxRetries: 1,
    });

    const started = performance.now();
    const error = await sut.getDocument('ESG-AAAA-BBBB-CCCC').catch((err: unknown) => err);

    // Two attempts (maxRetries: 1). Under heavy load Node's fetch (undici) can re-send an idempotent
    // GET once on its own when a connection drops before any answer: the server may see one more.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(error).toBeInstanceOf(EsignConnectionError);
    expect(error).toMatchObject({ timedOut: true, operationId: 'getDocument' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 150);
  });

  it('stops waiting between attempts when the caller aborts', async () => {
    const { sut, requests } = await serve((_req, res) =>
      json(res, 503, { error: 'retry' }, { 'Retry-After': '30' }),
    );
    const controller = new AbortController();

    const started = performance.now();
    const call = sut.listTemplates({ signal: controller.signal }).catch((err: unknown) => err);
    setTimeout(() => controller.abort(), 200);
    const error = await call;

    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('requests', () => {
  it('build URLs from the document: path parameters encoded, query without unset values, credential only where needed', async () => {
    const { sut, requests } = await serve((_req, res) => json(res, 200, {}));

    await sut.getDocument('ESG-A/B C');
    await sut.listDocuments({ page: 2, search: 'a&b', dateFrom: undefined });
    await sut.getSignReference();

    expect(requests.map((r) => r.url)).toEqual([
      '/api/v1/documents/ESG-A%2FB%20C',
      '/api/v1/documents?page=2&search=a%26b',
      '/api/v1/sign',
    ]);
    expect(requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer svc_live_test',
      'Bearer svc_live_test',
      undefined,
    ]);
    expect(requests.map((r) => r.headers.accept)).toEqual([
      'application/json',
      'application/json',
      'application/json',
    ]);
    expect(requests[0]?.headers['user-agent']).toMatch(/^esign-sdk-node\/\d+\.\d+\.\d+$/);
  });

  it('refuses a client without a key or with a base URL that is not http(s)', () => {
    expect(() => new EsignClient({ apiKey: '', baseUrl: 'http://localhost:8080' })).toThrow(/apiKey/);
    expect(() => new EsignClient({ apiKey: 'svc_live_x', baseUrl: 'localhost:8080' })).toThrow(/baseUrl/);
  });
});

describe('retryDelayMs and parseRetryAfter', () => {
  it('doubles from the base, jitters within 50-100%, caps at 8 s and never undercuts Retry-After', () => {
    expect(retryDelayMs(0, 500, undefined, () => 0)).toBe(250);
    expect(retryDelayMs(0, 500, undefined, () => 1)).toBe(500);
    expect(retryDelayMs(3, 500, undefined, () => 1)).toBe(4000);
    expect(retryDelayMs(10, 500, undefined, () => 1)).toBe(8000);
    expect(retryDelayMs(0, 500, 2, () => 1)).toBe(2000);
    expect(retryDelayMs(5, 500, 1, () => 1)).toBe(8000);
  });

  it('reads delta-seconds and HTTP dates, and ignores nonsense', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { auth, baseUrl, createAccount, errorOf } from './harness';

const SANDBOX_TOKEN = 'svc_sandbox_public_demo';

const sandbox = (body: unknown, headers: Record<string, string> = auth(SANDBOX_TOKEN), raw = false) =>
  fetch(`${baseUrl}/api/v1/sandbox/sign`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: raw ? (body as string) : JSON.stringify(body),
  });

describe('POST /api/v1/sandbox/sign', () => {
  it('answers mock signing data marked as sandbox, byte-identical for the same URL', async () => {
    const first = await sandbox({ document_url: 'https://example.com/contracts/lease.pdf' });
    expect(first.status).toBe(200);
    const bytes = await first.text();
    const body = JSON.parse(bytes) as Record<string, unknown>;
    expect(body).toMatchObject({
      sandbox: true,
      status: 'signed',
      documentUrl: 'https://example.com/contracts/lease.pdf',
      fileName: 'lease.pdf',
      declinedAt: null,
    });
    expect(body.auditId).toMatch(/^SBX-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(body.fileHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(typeof body.signedAt).toBe('string');
    // The same URL, written differently, is the same document: same bytes.
    const again = await sandbox({ document_url: 'HTTPS://EXAMPLE.com:443/contracts/lease.pdf#page=2' });
    expect(await again.text()).toBe(bytes);
    const other = (await (await sandbox({ document_url: 'https://example.com/other.pdf' })).json()) as {
      auditId: string;
    };
    expect(other.auditId).not.toBe(body.auditId);
  });

  it('never fetches the URL: an address nobody serves answers at once', async () => {
    const started = Date.now();
    const res = await sandbox({ document_url: 'http://10.255.255.1:9/never-fetched.pdf' });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives the documented outcomes for the magic URLs', async () => {
    const declined = (await (
      await sandbox({ document_url: 'https://sandbox.example/declined.pdf' })
    ).json()) as Record<string, unknown>;
    expect(declined).toMatchObject({ status: 'declined', signedAt: null });
    expect(typeof declined.declinedAt).toBe('string');
    const invalid = await sandbox({ document_url: 'https://sandbox.example/invalid.pdf' });
    expect(invalid.status).toBe(400);
    expect(await errorOf(invalid)).toMatch(/^document_url/);
    const tooLarge = await sandbox({ document_url: 'https://sandbox.example/too-large.pdf' });
    expect(tooLarge.status).toBe(413);
    const unavailable = await sandbox({ document_url: 'https://sandbox.example/unavailable.pdf' });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toMatch(/^\d+$/);
    await unavailable.body?.cancel();
  });

  it.each([
    ['bad JSON', '{"document_url": ', true],
    ['no document_url', {}, false],
    ['a URL that is not http(s)', { document_url: 'ftp://example.com/a.pdf' }, false],
    ['a URL over 2,048 characters', { document_url: `https://example.com/${'a'.repeat(2040)}.pdf` }, false],
    ['a document_url that is not a string', { document_url: 42 }, false],
  ])('answers 400 naming document_url for %s', async (_name, body, raw) => {
    const res = await sandbox(body, auth(SANDBOX_TOKEN), raw);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error).toMatch(raw ? /JSON/ : /document_url/);
  });

  it('tells a client which credential to use', async () => {
    const { apiKey } = await createAccount('business');
    const liveOnSandbox = await sandbox({ document_url: 'https://example.com/a.pdf' }, auth(apiKey));
    expect(liveOnSandbox.status).toBe(401);
    expect(await errorOf(liveOnSandbox)).toMatch(/sandbox token, not a live API key/);
    const none = await sandbox({ document_url: 'https://example.com/a.pdf' }, {});
    expect(none.status).toBe(401);
    expect(await errorOf(none)).toMatch(/sandbox token/);
    const wrong = await sandbox(
      { document_url: 'https://example.com/a.pdf' },
      auth('svc_sandbox_wrongtoken'),
    );
    expect(wrong.status).toBe(401);
    const sandboxOnLive = await fetch(`${baseUrl}/api/v1/documents`, { headers: auth(SANDBOX_TOKEN) });
    expect(sandboxOnLive.status).toBe(401);
    expect(await errorOf(sandboxOnLive)).toMatch(/needs a live API key/);
  });

  it('stores nothing: the answer of a sandbox signing is not a document of any account', async () => {
    const body = (await (
      await sandbox({ document_url: 'https://example.com/nothing-stored.pdf' })
    ).json()) as {
      auditId: string;
    };
    const { apiKey } = await createAccount('business');
    const res = await fetch(`${baseUrl}/api/v1/documents/${body.auditId}`, { headers: auth(apiKey) });
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

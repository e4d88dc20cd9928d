import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '@esign/testing';
import { auth, baseUrl, createAccount, dataUri, errorOf, revokeKey, sign } from './harness';

let form: Parameters<typeof sign>[1];

beforeAll(async () => {
  form = {
    file: { bytes: await makePdf({ pages: 1 }), name: 'a.pdf' },
    fields: {
      signerName: 'A',
      signerEmail: 'a@example.com',
      signatureData: dataUri(await makePng({ width: 90, height: 30 })),
    },
  };
});

const documents = (headers: Record<string, string>) => fetch(`${baseUrl}/api/v1/documents`, { headers });

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
    ['a key of the wrong shape', { Authorization: 'Bearer sk_test_123' }],
    ['an unknown live key', { Authorization: `Bearer svc_live_${'x'.repeat(32)}` }],
  ])('answers 401 with a JSON error for %s', async (_name, headers) => {
    const res = await documents(headers);
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toMatch(/API key/);
  });

  it('answers 403 for accounts whose plan has no API access (Free and Pro), 200 for Business', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const { apiKey } = await createAccount(plan);
      const res = await documents(auth(apiKey));
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toMatch(/Business plan/);
      expect((await sign(apiKey, form)).status).toBe(403);
    }
    const { apiKey } = await createAccount('business');
    expect((await documents(auth(apiKey))).status).toBe(200);
  });

  it('refuses a revoked key at once, even right after it was used (and cached)', async () => {
    const account = await createAccount('business');
    expect((await sign(account.apiKey, form)).status).toBe(200);
    await revokeKey(account.keyId);
    // Revocation is an event every gateway hears: wait for the few milliseconds a message takes.
    await expect.poll(async () => (await documents(auth(account.apiKey))).status).toBe(401);
    const res = await sign(account.apiKey, form);
    expect(res.status).toBe(401);
    expect((await documents(auth(account.apiKey))).status).toBe(401);
  });

  it('follows a plan change at once, even for a key just used (and cached)', async () => {
    const account = await createAccount('business');
    expect((await documents(auth(account.apiKey))).status).toBe(200);
    const { AccountPlanSet } = await import('@esign/contracts');
    const { operatorBus } = await import('./harness');
    await (await operatorBus()).request(AccountPlanSet, { email: account.email, plan: 'free' });
    // The change is an event every gateway hears: wait for the few milliseconds a message takes.
    await expect.poll(async () => (await documents(auth(account.apiKey))).status).toBe(403);
    const res = await documents(auth(account.apiKey));
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatch(/free plan/);
  });

  it('keeps other keys of the same account working when one is revoked', async () => {
    const first = await createAccount('business');
    const { KeyCreate } = await import('@esign/contracts');
    const { operatorBus } = await import('./harness');
    const second = await (await operatorBus()).request(KeyCreate, { email: first.email });
    await revokeKey(first.keyId);
    await expect.poll(async () => (await documents(auth(first.apiKey))).status).toBe(401);
    expect((await documents(auth(second.apiKey))).status).toBe(200);
  });

  it('serves the field reference without a key', async () => {
    const res = await fetch(`${baseUrl}/api/v1/sign`, { headers: { Accept: 'application/json' } });
    expect(res.status).toBe(200);
  });
});

import {
  AccountPasswordSet,
  AccountPlanSet,
  DocumentQuotaRelease,
  DocumentQuotaReserve,
} from '@esign/contracts';
import { makePdf } from '@esign/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  errorOf,
  jsonInit,
  operatorBus,
  SESSION_COOKIE,
  sign,
  signUpAndIn,
  unacked,
  type SignedInUser,
} from './harness';

interface KeyView {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
}

const typedSignature = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada',
  positions: [{ x: 10, y: 10, page: 0, width: 20 }],
};

const createKey = (user: SignedInUser, name?: string) =>
  fetch(`${baseUrl}/api/keys`, jsonInit('POST', name ? { name } : {}, dashboardHeaders(user)));

const listKeys = async (user: SignedInUser): Promise<KeyView[]> => {
  const res = await fetch(`${baseUrl}/api/keys`, { headers: { Cookie: user.cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: KeyView[] }).keys;
};

let pdf: Buffer;
beforeAll(async () => {
  pdf = await makePdf({ pages: 1 });
});

describe('accounts and keys through the dashboard endpoints', () => {
  it('signs up, signs in with an HttpOnly SameSite cookie, and shows the session with its usage', async () => {
    const user = await signUpAndIn();
    const attributes = user.setCookie.split(';').map((a) => a.trim().toLowerCase());
    expect(user.cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect(user.cookie.length).toBeGreaterThan(`${SESSION_COOKIE}=`.length + 40);
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    // The e2e stack runs over plain http (SESSION_COOKIE_SECURE=false); no Domain in any case.
    expect(attributes).not.toContain('secure');
    expect(attributes.some((a) => a.startsWith('domain='))).toBe(false);
    expect(attributes.some((a) => a.startsWith('max-age='))).toBe(true);

    const res = await fetch(`${baseUrl}/api/session`, { headers: { Cookie: user.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const session = (await res.json()) as Record<string, unknown>;
    expect(session).toMatchObject({
      email: user.email,
      plan: 'free',
      csrfToken: user.csrfToken,
      usage: {
        limits: { documentsPerMonth: 3, apiAccess: false, maxFileBytes: 10 * 1024 * 1024 },
        documentsUsed: 0,
        documentsRemaining: 3,
      },
    });
  });

  it('answers sign-up alike for a new and an existing email, and sign-in alike for an unknown email and a wrong password', async () => {
    const user = await signUpAndIn();
    const again = await fetch(
      `${baseUrl}/api/auth/sign-up`,
      jsonInit('POST', { email: user.email, password: 'another password' }),
    );
    const fresh = await fetch(
      `${baseUrl}/api/auth/sign-up`,
      jsonInit('POST', { email: `new${Date.now()}@example.com`, password: 'another password' }),
    );
    expect(again.status).toBe(202);
    expect(fresh.status).toBe(202);
    expect(await again.json()).toEqual(await fresh.json());
    const short = await fetch(
      `${baseUrl}/api/auth/sign-up`,
      jsonInit('POST', { email: `short${Date.now()}@example.com`, password: 'short' }),
    );
    expect(short.status).toBe(400);
    expect(await errorOf(short)).toContain('password');

    const wrongPassword = await fetch(
      `${baseUrl}/api/auth/sign-in`,
      jsonInit('POST', { email: user.email, password: 'not the password' }),
    );
    const unknownEmail = await fetch(
      `${baseUrl}/api/auth/sign-in`,
      jsonInit('POST', { email: `nobody${Date.now()}@example.com`, password: 'not the password' }),
    );
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.headers.get('set-cookie')).toBeNull();
    expect(await errorOf(wrongPassword)).toBe(await errorOf(unknownEmail));
  });

  it('creates a key shown once, which signs once the account is on Business, is listed without the key, and is refused once revoked', async () => {
    const user = await signUpAndIn();
    const created = await createKey(user, 'e2e server');
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = (await created.json()) as { id: string; name: string; key: string; prefix: string };
    expect(key.key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    expect(key.name).toBe('e2e server');
    expect(key.key.startsWith(key.prefix)).toBe(true);

    // A Free account's key exists but has no API access (another key: a verified key is cached).
    const other = (await (await createKey(user, 'free check')).json()) as { key: string };
    const free = await sign(other.key, { file: { bytes: pdf, name: 'a.pdf' }, fields: typedSignature });
    expect(free.status).toBe(403);
    expect(await errorOf(free)).toContain('Business');

    // The operator moves the account to Business; the key then signs.
    await (await operatorBus()).request(AccountPlanSet, { email: user.email, plan: 'business' });
    const signed = await sign(key.key, { file: { bytes: pdf, name: 'a.pdf' }, fields: typedSignature });
    expect(signed.status).toBe(200);
    expect(signed.headers.get('content-type')).toBe('application/pdf');
    await signed.arrayBuffer();

    // Listed: never the key itself; last use recorded (off the request path, so eventually).
    await expect
      .poll(async () => (await listKeys(user)).find((k) => k.id === key.id)?.lastUsedAt ?? null, {
        timeout: 10_000,
      })
      .not.toBeNull();
    const listRes = await fetch(`${baseUrl}/api/keys`, { headers: { Cookie: user.cookie } });
    const listText = await listRes.text();
    expect(listText).not.toContain(key.key);
    expect(listText).toContain(key.prefix);
    const listed = (JSON.parse(listText) as { keys: KeyView[] }).keys.find((k) => k.id === key.id);
    expect(listed).toMatchObject({ name: 'e2e server', revoked: false, revokedAt: null });

    // The document was counted against the month: from its record (Business has no limit, so
    // nothing was reserved before signing), moments after the answer.
    const sessionView = async () =>
      (await (await fetch(`${baseUrl}/api/session`, { headers: { Cookie: user.cookie } })).json()) as {
        plan: string;
        usage: { documentsUsed: number; documentsRemaining: number | null };
      };
    await expect.poll(async () => (await sessionView()).usage.documentsUsed, { timeout: 10_000 }).toBe(1);
    const session = await sessionView();
    expect(session.plan).toBe('business');
    expect(session.usage).toMatchObject({ documentsUsed: 1, documentsRemaining: null });

    const revoked = await fetch(`${baseUrl}/api/keys?id=${key.id}`, {
      method: 'DELETE',
      headers: dashboardHeaders(user),
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id: key.id, alreadyRevoked: false });
    const refused = await sign(key.key, { file: { bytes: pdf, name: 'a.pdf' }, fields: typedSignature });
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
    expect((await listKeys(user)).find((k) => k.id === key.id)).toMatchObject({ revoked: true });

    const twice = await fetch(`${baseUrl}/api/keys?id=${key.id}`, {
      method: 'DELETE',
      headers: dashboardHeaders(user),
    });
    expect(await twice.json()).toMatchObject({ id: key.id, alreadyRevoked: true });
  });

  it('does not count a replay under the same Idempotency-Key twice', async () => {
    const user = await signUpAndIn();
    await (await operatorBus()).request(AccountPlanSet, { email: user.email, plan: 'business' });
    const { key } = (await (await createKey(user)).json()) as { key: string };
    const idempotencyKey = `quota-${Date.now()}`;
    for (const expected of [undefined, 'true']) {
      const res = await sign(
        key,
        { file: { bytes: pdf, name: 'a.pdf' }, fields: typedSignature },
        { 'Idempotency-Key': idempotencyKey },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed') ?? undefined).toBe(expected);
      await res.arrayBuffer();
    }
    const used = async () =>
      (
        (await (await fetch(`${baseUrl}/api/session`, { headers: { Cookie: user.cookie } })).json()) as {
          usage: { documentsUsed: number };
        }
      ).usage.documentsUsed;
    // Counted from the records, in order: once another document has been counted after them, the
    // replay has had every chance to be counted too.
    await expect.poll(used, { timeout: 10_000 }).toBe(1);
    const another = await sign(key, { file: { bytes: pdf, name: 'b.pdf' }, fields: typedSignature });
    expect(another.status).toBe(200);
    await another.arrayBuffer();
    await expect.poll(used, { timeout: 10_000 }).toBe(2);
    // And nothing more once the key service has handled every record event published so far.
    await expect.poll(() => unacked('key-count-documents'), { timeout: 10_000 }).toBe(0);
    expect(await used()).toBe(2);
  });

  it('refuses a change without the CSRF token or from another Origin (403)', async () => {
    const user = await signUpAndIn();
    const noToken = await fetch(
      `${baseUrl}/api/keys`,
      jsonInit('POST', {}, { Cookie: user.cookie, Origin: baseUrl }),
    );
    expect(noToken.status).toBe(403);
    expect(await errorOf(noToken)).toContain('X-CSRF-Token');
    const wrongToken = await fetch(
      `${baseUrl}/api/keys`,
      jsonInit('POST', {}, { ...dashboardHeaders(user), 'X-CSRF-Token': 'x'.repeat(43) }),
    );
    expect(wrongToken.status).toBe(403);
    const foreign = await fetch(
      `${baseUrl}/api/keys`,
      jsonInit('POST', {}, { ...dashboardHeaders(user), Origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toContain('Origin');
    const noOrigin = await fetch(
      `${baseUrl}/api/keys`,
      jsonInit('POST', {}, { Cookie: user.cookie, 'X-CSRF-Token': user.csrfToken }),
    );
    expect(noOrigin.status).toBe(403);
    // None of them created a key.
    expect(await listKeys(user)).toEqual([]);
    // A sign-in posted from another site is refused too (login CSRF).
    const crossSiteSignIn = await fetch(
      `${baseUrl}/api/auth/sign-in`,
      jsonInit('POST', { email: user.email, password: user.password }, { Origin: 'https://evil.example' }),
    );
    expect(crossSiteSignIn.status).toBe(403);
    expect(crossSiteSignIn.headers.get('set-cookie')).toBeNull();
  });

  it('never accepts the cookie on /api/v1, nor an API key on /api/keys', async () => {
    const user = await signUpAndIn();
    await (await operatorBus()).request(AccountPlanSet, { email: user.email, plan: 'business' });
    const cookieOnApi = await fetch(`${baseUrl}/api/v1/documents`, { headers: { Cookie: user.cookie } });
    expect(cookieOnApi.status).toBe(401);
    expect(await errorOf(cookieOnApi)).toContain('API key');
    const business = await createAccount('business');
    const keyOnDashboard = await fetch(`${baseUrl}/api/keys`, { headers: auth(business.apiKey) });
    expect(keyOnDashboard.status).toBe(401);
    expect(await errorOf(keyOnDashboard)).toMatch(/sign in/i);
    const keyOnCreate = await fetch(
      `${baseUrl}/api/keys`,
      jsonInit('POST', {}, { ...auth(business.apiKey), Origin: baseUrl }),
    );
    expect(keyOnCreate.status).toBe(401);
    const nothing = await fetch(`${baseUrl}/api/session`);
    expect(nothing.status).toBe(401);
    expect(nothing.headers.get('content-type')).toMatch(/^application\/json/);
    const forged = await fetch(`${baseUrl}/api/session`, {
      headers: { Cookie: `${SESSION_COOKIE}=${'A'.repeat(43)}` },
    });
    expect(forged.status).toBe(401);
  });

  it("answers 404 for another account's key and 400 for a malformed id", async () => {
    const [user, other] = await Promise.all([signUpAndIn(), signUpAndIn()]);
    const { id } = (await (await createKey(other)).json()) as { id: string };
    const foreign = await fetch(`${baseUrl}/api/keys?id=${id}`, {
      method: 'DELETE',
      headers: dashboardHeaders(user),
    });
    expect(foreign.status).toBe(404);
    const unknown = await fetch(`${baseUrl}/api/keys?id=${crypto.randomUUID()}`, {
      method: 'DELETE',
      headers: dashboardHeaders(user),
    });
    expect(unknown.status).toBe(404);
    expect(await errorOf(foreign)).toBe(await errorOf(unknown));
    const malformed = await fetch(`${baseUrl}/api/keys?id=not-a-uuid`, {
      method: 'DELETE',
      headers: dashboardHeaders(user),
    });
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toContain('id');
    const missing = await fetch(`${baseUrl}/api/keys`, { method: 'DELETE', headers: dashboardHeaders(user) });
    expect(missing.status).toBe(400);
    // The other account's key is untouched.
    expect((await listKeys(other)).find((k) => k.id === id)?.revoked).toBe(false);
  });

  it('ends the session at sign-out and clears the cookie', async () => {
    const user = await signUpAndIn();
    const out = await fetch(`${baseUrl}/api/auth/sign-out`, {
      method: 'POST',
      headers: dashboardHeaders(user),
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
    const after = await fetch(`${baseUrl}/api/session`, { headers: { Cookie: user.cookie } });
    expect(after.status).toBe(401);
    expect(await errorOf(after)).toMatch(/sign in/i);
  });

  it("grants exactly the Free quota to 100 parallel reservations (the sign workflow's subject), and the session shows it", async () => {
    const bus = await operatorBus();
    const account = await createAccount('free');
    const password = 'quota test password';
    await bus.request(AccountPasswordSet, { email: account.email, password });
    const reservations = await Promise.allSettled(
      Array.from({ length: 100 }, () => bus.request(DocumentQuotaReserve, { accountId: account.accountId })),
    );
    const granted = reservations.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = reservations.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(granted).toHaveLength(3);
    expect(refused).toHaveLength(97);
    expect(refused[0]).toMatchObject({ code: 'permission_denied' });

    const signIn = await fetch(
      `${baseUrl}/api/auth/sign-in`,
      jsonInit('POST', { email: account.email, password }),
    );
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const usage = async () =>
      (
        (await (await fetch(`${baseUrl}/api/session`, { headers: { Cookie: cookie } })).json()) as {
          usage: { documentsUsed: number; documentsRemaining: number | null };
        }
      ).usage;
    expect(await usage()).toMatchObject({ documentsUsed: 3, documentsRemaining: 0 });
    const first = granted[0];
    if (!first) throw new Error('no reservation');
    await bus.request(DocumentQuotaRelease, {
      accountId: account.accountId,
      reservationId: first.reservationId,
    });
    expect(await usage()).toMatchObject({ documentsUsed: 2, documentsRemaining: 1 });
  });
});

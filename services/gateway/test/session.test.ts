import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  AccountKeysList,
  AccountSignIn,
  ServiceError,
  SessionSignOut,
  SessionVerify,
  type TSessionPrincipal,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * The session cookie as a deployment over https sees it (SESSION_COOKIE_SECURE left at its default,
 * PUBLIC_BASE_URL set), the sign-in limit per client IP, and sign-out taking effect at once: real
 * NATS and S3 protocol, and a key service that keeps its sessions in a map.
 */
const PUBLIC = 'https://esign.example';
const ACCOUNT = randomUUID();
let s3: TestS3;
let keyService: Bus;
let sut: RunningGateway;
const sessions = new Map<string, TSessionPrincipal>();
let verifications = 0;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gws');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  keyService = await connectBus({ url: natsUrl, name: 'key', prefix, logger, timeoutMs: 5000 });
  await keyService.serve([
    endpoint(AccountSignIn, (req) => {
      if (req.email === 'locked@example.com') {
        return Promise.reject(new ServiceError('rate_limited', 'too many sign-in attempts for this email'));
      }
      if (req.password !== 'right password') {
        return Promise.reject(new ServiceError('unauthenticated', 'invalid email or password'));
      }
      const token = randomBytes(32).toString('base64url');
      const session = {
        sessionId: randomUUID(),
        token,
        csrfSecret: randomBytes(32).toString('base64url'),
        expiresAt: new Date(Date.now() + 12 * 3600_000).toISOString(),
        idleExpiresAt: new Date(Date.now() + 1800_000).toISOString(),
      };
      sessions.set(sha256(token), {
        sessionId: session.sessionId,
        accountId: ACCOUNT,
        email: req.email,
        plan: 'free',
        csrfSecret: session.csrfSecret,
        expiresAt: session.expiresAt,
        idleExpiresAt: session.idleExpiresAt,
      });
      return Promise.resolve({ accountId: ACCOUNT, email: req.email, plan: 'free' as const, session });
    }),
    endpoint(SessionVerify, (req) => {
      verifications += 1;
      const session = sessions.get(req.tokenHash);
      return session
        ? Promise.resolve(session)
        : Promise.reject(new ServiceError('unauthenticated', 'no session'));
    }),
    endpoint(SessionSignOut, (req) => Promise.resolve({ signedOut: sessions.delete(req.tokenHash) })),
    endpoint(AccountKeysList, () => Promise.resolve({ keys: [] })),
  ]);
  sut = await startTestGateway(
    { natsUrl, prefix, s3 },
    {
      PUBLIC_BASE_URL: PUBLIC,
      AUTH_RATE_LIMIT_PER_MINUTE: '3',
      TRUST_PROXY: '1',
    },
    logger,
  );
});

afterAll(async () => {
  await sut?.stop();
  await keyService?.drain();
  await s3?.stop();
});

const signIn = (ip: string, email = 'ada@example.com', password = 'right password') =>
  fetch(`${sut.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip },
    body: JSON.stringify({ email, password }),
  });

const signedIn = async (ip: string) => {
  const res = await signIn(ip);
  expect(res.status).toBe(200);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { setCookie, cookie: setCookie.split(';')[0] ?? '', csrfToken };
};

describe('the session cookie over https', () => {
  it('is __Host-esign_session with Secure, HttpOnly, SameSite=Lax, Path=/ and no Domain', async () => {
    const { setCookie, cookie } = await signedIn('203.0.113.1');
    expect(cookie).toMatch(/^__Host-esign_session=[A-Za-z0-9_-]{43}$/);
    const attributes = setCookie.split(';').map((a) => a.trim());
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']));
    expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice(8));
    expect(maxAge).toBeGreaterThan(11 * 3600);
    expect(maxAge).toBeLessThanOrEqual(12 * 3600);
  });

  it('ignores the plain-http cookie name when the deployment is https', async () => {
    const { cookie } = await signedIn('203.0.113.2');
    const value = cookie.split('=')[1] ?? '';
    const res = await fetch(`${sut.url}/api/keys`, { headers: { Cookie: `esign_session=${value}` } });
    expect(res.status).toBe(401);
    const ok = await fetch(`${sut.url}/api/keys`, { headers: { Cookie: `other=1; ${cookie}` } });
    expect(ok.status).toBe(200);
  });

  it('takes the Origin from PUBLIC_BASE_URL, or the Referer when a browser sends no Origin', async () => {
    const { cookie, csrfToken } = await signedIn('203.0.113.3');
    const signOut = (headers: Record<string, string>) =>
      fetch(`${sut.url}/api/auth/sign-out`, {
        method: 'POST',
        headers: { Cookie: cookie, 'X-CSRF-Token': csrfToken, ...headers },
      });
    // The gateway's own address is not PUBLIC_BASE_URL: what browsers use is.
    expect((await signOut({ Origin: sut.url })).status).toBe(403);
    expect((await signOut({ Referer: 'https://elsewhere.example/esign.example' })).status).toBe(403);
    expect((await signOut({ Origin: 'null' })).status).toBe(403);
    const out = await signOut({ Referer: `${PUBLIC}/dashboard/keys` });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe(
      '__Host-esign_session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0',
    );
  });

  it('asks the key service on every request, so a sign-out anywhere ends the session at once', async () => {
    const { cookie, csrfToken } = await signedIn('203.0.113.4');
    const before = verifications;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${sut.url}/api/keys`, { headers: { Cookie: cookie } });
      expect(res.status).toBe(200);
    }
    expect(verifications - before).toBe(3);
    // Another replica signs it out: here, the key service forgets it directly.
    sessions.delete(sha256(cookie.split('=')[1] ?? ''));
    const after = await fetch(`${sut.url}/api/keys`, { headers: { Cookie: cookie } });
    expect(after.status).toBe(401);
    expect(csrfToken).not.toBe('');
  });
});

describe('sign-in limits', () => {
  it('limits sign-in attempts per client IP, whatever the answers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await signIn('198.51.100.20', 'ada@example.com', 'wrong password');
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await signIn('198.51.100.21')).status).toBe(200);
  });

  it("answers the key service's per-email limit as 429 with Retry-After", async () => {
    const res = await signIn('198.51.100.22', 'locked@example.com');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(((await res.json()) as { error: string }).error).toContain('too many sign-in attempts');
  });
});

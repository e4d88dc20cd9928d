import { createHash, randomUUID } from 'node:crypto';
import { connectBus, type Bus } from '@esign/bus';
import {
  AccountKeyCreate,
  AccountKeyRevoke,
  AccountKeysList,
  AccountPasswordSet,
  AccountPlanSet,
  AccountSignIn,
  AccountSignUp,
  AccountUsageGet,
  DocumentQuotaRelease,
  DocumentQuotaReserve,
  DocumentSigned,
  KeyCreate,
  KeyRevoked,
  KeyVerify,
  ServiceError,
  SessionSignOut,
  SessionVerify,
  SignInTokenIssue,
  SignInTokenRedeem,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { createTestDatabase, testNatsUrl, uniqueBusPrefix, type TestDatabase } from '@esign/testing';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeyServiceConfig } from '../src/config';
import { startKeyService, type KeyService } from '../src/start';
import { runCliProcess } from './helpers';

type TRevokedEvent = z.infer<(typeof KeyRevoked)['payload']>;

const MINUTE = 60_000;
const MAX_ATTEMPTS = 4;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const uniqueEmail = (name: string) => `${name}.${randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = 'correct horse battery staple';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await work().catch(() => undefined);
  return performance.now() - start;
};

// The service's clock: tests move it forward to cross idle, absolute, token and month boundaries.
let clockOffsetMs = 0;
const now = () => new Date(Date.now() + clockOffsetMs);

let database: TestDatabase;
let sut: KeyService;
let client: Bus;
let db: pg.Client;
let cliEnv: Record<string, string>;
const revokedEvents: TRevokedEvent[] = [];
const secretsHandedOut: string[] = [];

const signUpAndIn = async (email = uniqueEmail('user'), password = PASSWORD) => {
  await client.request(AccountSignUp, { email, password });
  const signedIn = await client.request(AccountSignIn, { email, password, userAgent: 'vitest' });
  secretsHandedOut.push(signedIn.session.token);
  return signedIn;
};

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  database = await createTestDatabase('key_acc');
  const prefix = uniqueBusPrefix('keyacc');
  cliEnv = { NATS_URL: natsUrl, BUS_PREFIX: prefix };
  sut = await startKeyService(
    loadKeyServiceConfig({
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      LOG_LEVEL: 'error',
      SIGN_IN_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      PURGE_INTERVAL_MS: '100',
    }),
    { now },
  );
  client = await connectBus({
    url: natsUrl,
    name: 'key-accounts-test',
    prefix,
    logger: createLogger({ service: 'key-accounts-test', level: 'error' }),
    timeoutMs: 20_000,
  });
  client.subscribe(KeyRevoked, (event) => void revokedEvents.push(event));
  await client.connection.flush();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await client?.drain();
  await sut?.stop();
  await database?.drop();
});

describe('sign-up and sign-in', () => {
  it('signs up, signs in with a session, verifies it by its hash with the CSRF secret, and signs out', async () => {
    const email = uniqueEmail('Ada');
    expect(
      await client.request(AccountSignUp, { email: ` ${email.toUpperCase()} `, password: PASSWORD }),
    ).toEqual({
      accepted: true,
    });
    const signedIn = await client.request(AccountSignIn, {
      email,
      password: PASSWORD,
      userAgent: 'U'.repeat(2000),
    });
    secretsHandedOut.push(signedIn.session.token, signedIn.session.csrfSecret);
    const stored = await db.query<{ user_agent: string }>(
      'select user_agent from key.sessions where id = $1',
      [signedIn.session.sessionId],
    );
    expect(stored.rows[0]?.user_agent).toBe('U'.repeat(512));
    expect(signedIn).toMatchObject({ email: email.toLowerCase(), plan: 'free' });
    expect(signedIn.session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn.session.csrfSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signedIn.session.csrfSecret).not.toBe(signedIn.session.token);
    const start = now().getTime();
    expect(Date.parse(signedIn.session.expiresAt) - start).toBeGreaterThan(12 * 60 * MINUTE - 5000);
    expect(Date.parse(signedIn.session.idleExpiresAt) - start).toBeGreaterThan(30 * MINUTE - 5000);
    expect(Date.parse(signedIn.session.idleExpiresAt) - start).toBeLessThanOrEqual(30 * MINUTE + 1000);

    const tokenHash = sha256(signedIn.session.token);
    const principal = await client.request(SessionVerify, { tokenHash });
    expect(principal).toMatchObject({
      sessionId: signedIn.session.sessionId,
      accountId: signedIn.accountId,
      email: email.toLowerCase(),
      plan: 'free',
      csrfSecret: signedIn.session.csrfSecret,
      expiresAt: signedIn.session.expiresAt,
    });

    expect(await client.request(SessionSignOut, { tokenHash })).toEqual({ signedOut: true });
    await expect(client.request(SessionVerify, { tokenHash })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    expect(await client.request(SessionSignOut, { tokenHash })).toEqual({ signedOut: false });
  });

  it('answers a wrong password, an unknown email and a password-less account alike', async () => {
    const { email } = await signUpAndIn();
    const cliEmail = uniqueEmail('cli-made');
    await client.request(KeyCreate, { email: cliEmail, plan: 'business' });

    // The same answer each time: nothing tells which of the three it was.
    const refused = { code: 'unauthenticated', message: 'invalid email or password', field: undefined };
    await expect(
      client.request(AccountSignIn, { email, password: 'not the password' }),
    ).rejects.toMatchObject(refused);
    await expect(
      client.request(AccountSignIn, { email: uniqueEmail('nobody'), password: PASSWORD }),
    ).rejects.toMatchObject(refused);
    await expect(
      client.request(AccountSignIn, { email: cliEmail, password: PASSWORD }),
    ).rejects.toMatchObject(refused);
  });

  it('never changes an existing account through sign-up, and answers it exactly like a new one', async () => {
    const { email } = await signUpAndIn();
    const again = await client.request(AccountSignUp, { email, password: 'an attacker’s password' });
    expect(again).toEqual({ accepted: true });
    // The first password still works; the second does not.
    await client.request(AccountSignIn, { email, password: PASSWORD });
    await expect(
      client.request(AccountSignIn, { email, password: 'an attacker’s password' }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });

    // An account made by the CLI (no password) cannot be claimed by signing up first.
    const cliEmail = uniqueEmail('claim');
    await client.request(KeyCreate, { email: cliEmail, plan: 'business' });
    expect(await client.request(AccountSignUp, { email: cliEmail, password: PASSWORD })).toEqual({
      accepted: true,
    });
    await expect(
      client.request(AccountSignIn, { email: cliEmail, password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('takes as long for unknown emails and existing accounts as for the real paths (one hash each)', async () => {
    const { email } = await signUpAndIn();
    const rounds = 5;
    const samples = {
      newSignUp: [] as number[],
      existingSignUp: [] as number[],
      wrong: [] as number[],
      unknown: [] as number[],
    };
    for (let i = 0; i < rounds; i++) {
      samples.newSignUp.push(
        await timed(() => client.request(AccountSignUp, { email: uniqueEmail('t'), password: PASSWORD })),
      );
      samples.existingSignUp.push(
        await timed(() => client.request(AccountSignUp, { email, password: PASSWORD })),
      );
      // A different email each round, so the attempt limit does not cut the wrong-password path short.
      const victim = i === 0 ? email : (await signUpAndIn()).email;
      samples.wrong.push(
        await timed(() => client.request(AccountSignIn, { email: victim, password: 'wrong password' })),
      );
      samples.unknown.push(
        await timed(() => client.request(AccountSignIn, { email: uniqueEmail('ghost'), password: PASSWORD })),
      );
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    // A hash costs tens of milliseconds; a path that skipped it would answer in a few.
    expect(m.wrong).toBeGreaterThan(20);
    expect(m.unknown).toBeGreaterThan(0.4 * (m.wrong ?? 0));
    expect(m.unknown).toBeLessThan(2.5 * (m.wrong ?? 0));
    expect(m.existingSignUp).toBeGreaterThan(0.4 * (m.newSignUp ?? 0));
    expect(m.existingSignUp).toBeLessThan(2.5 * (m.newSignUp ?? 0));
  });

  it('refuses a new password shorter than 8 characters and a malformed email', async () => {
    // The bus client validates too: the requests go out raw.
    const raw = async (subject: string, body: unknown) => {
      const reply = await client.connection.request(
        client.wire(subject),
        new TextEncoder().encode(JSON.stringify(body)),
        {
          timeout: 5000,
        },
      );
      return JSON.parse(new TextDecoder().decode(reply.data)) as unknown;
    };
    expect(
      await raw(AccountSignUp.subject, { email: uniqueEmail('short'), password: 'short' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', field: 'password' },
    });
    await expect(
      client.request(AccountSignUp, { email: 'not an email', password: PASSWORD }),
    ).rejects.toMatchObject({ field: 'email' });
  });
});

describe('sign-in attempt limit', () => {
  it('refuses further attempts for an email after the limit, even the right password, until the window ends', async () => {
    const { email } = await signUpAndIn();
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await expect(client.request(AccountSignIn, { email, password: `wrong ${i}` })).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    }
    await expect(client.request(AccountSignIn, { email, password: PASSWORD })).rejects.toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/try again after \d{4}-/) as unknown,
    });

    clockOffsetMs += 16 * MINUTE;
    const signedIn = await client.request(AccountSignIn, { email, password: PASSWORD });
    secretsHandedOut.push(signedIn.session.token);
    // A success clears the count.
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await expect(client.request(AccountSignIn, { email, password: `again ${i}` })).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    }
  });

  it('limits unknown emails the same way, so the limit reveals nothing', async () => {
    const email = uniqueEmail('ghost');
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await expect(client.request(AccountSignIn, { email, password: PASSWORD })).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    }
    await expect(client.request(AccountSignIn, { email, password: PASSWORD })).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it('counts concurrent guesses: no more than the limit are checked', async () => {
    const { email } = await signUpAndIn();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => client.request(AccountSignIn, { email, password: `guess ${i}` })),
    );
    const codes = results.map((result) =>
      result.status === 'rejected' && result.reason instanceof ServiceError
        ? result.reason.code
        : result.status,
    );
    expect(codes.filter((c) => c === 'unauthenticated')).toHaveLength(MAX_ATTEMPTS);
    expect(codes.filter((c) => c === 'rate_limited')).toHaveLength(12 - MAX_ATTEMPTS);
  });
});

describe('session lifetimes', () => {
  const lastSeen = async (sessionId: string) =>
    (
      await db.query<{ last_seen_at: Date }>('select last_seen_at from key.sessions where id = $1', [
        sessionId,
      ])
    ).rows[0]?.last_seen_at;

  it('slides the idle deadline, writing last-seen at most once a minute', async () => {
    const { session } = await signUpAndIn();
    const tokenHash = sha256(session.token);
    const seenAtStart = await lastSeen(session.sessionId);

    clockOffsetMs += 30_000;
    await client.request(SessionVerify, { tokenHash });
    expect(await lastSeen(session.sessionId)).toEqual(seenAtStart);

    clockOffsetMs += 31_000;
    const touched = await client.request(SessionVerify, { tokenHash });
    const seenAfterMinute = await lastSeen(session.sessionId);
    expect(seenAfterMinute?.getTime()).toBeGreaterThan(seenAtStart?.getTime() ?? Infinity);
    expect(Date.parse(touched.idleExpiresAt)).toBeGreaterThan(Date.parse(session.idleExpiresAt));

    // Used every 25 minutes, the session outlives several idle periods...
    for (let i = 0; i < 4; i++) {
      clockOffsetMs += 25 * MINUTE;
      await client.request(SessionVerify, { tokenHash });
    }
    // ...and ends after 30 idle minutes.
    clockOffsetMs += 30 * MINUTE + 1000;
    await expect(client.request(SessionVerify, { tokenHash })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
  });

  it('ends a session at its absolute lifetime however active it is', async () => {
    const { session } = await signUpAndIn();
    const tokenHash = sha256(session.token);
    const end = Date.parse(session.expiresAt);
    while (now().getTime() + 20 * MINUTE < end) {
      clockOffsetMs += 20 * MINUTE;
      const principal = await client.request(SessionVerify, { tokenHash });
      expect(Date.parse(principal.idleExpiresAt)).toBeLessThanOrEqual(end);
    }
    clockOffsetMs += end - now().getTime() + 1000;
    await expect(client.request(SessionVerify, { tokenHash })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
  });

  it('purges expired sessions from the table', async () => {
    const { session } = await signUpAndIn();
    clockOffsetMs += 31 * MINUTE;
    await expect
      .poll(
        async () =>
          (await db.query('select 1 from key.sessions where id = $1', [session.sessionId])).rowCount,
        {
          timeout: 3000,
          interval: 50,
        },
      )
      .toBe(0);
  });
});

describe('sign-in tokens', () => {
  it('issues a token for an existing account only, usable once, and marks the email verified', async () => {
    const { email, accountId } = await signUpAndIn();
    expect(await client.request(SignInTokenIssue, { email: uniqueEmail('nobody') })).toEqual({
      accountExists: false,
    });

    const issued = await client.request(SignInTokenIssue, { email: email.toUpperCase() });
    if (!issued.accountExists) throw new Error('expected a token');
    secretsHandedOut.push(issued.token);
    expect(issued.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(issued.expiresAt) - now().getTime()).toBeGreaterThan(14 * MINUTE);
    expect(Date.parse(issued.expiresAt) - now().getTime()).toBeLessThanOrEqual(15 * MINUTE + 1000);

    const tokenHash = sha256(issued.token);
    const signedIn = await client.request(SignInTokenRedeem, { tokenHash });
    secretsHandedOut.push(signedIn.session.token);
    expect(signedIn.accountId).toBe(accountId);
    await client.request(SessionVerify, { tokenHash: sha256(signedIn.session.token) });
    const verified = await db.query<{ email_verified_at: Date | null }>(
      'select email_verified_at from key.accounts where id = $1',
      [accountId],
    );
    expect(verified.rows[0]?.email_verified_at).toBeInstanceOf(Date);

    await expect(client.request(SignInTokenRedeem, { tokenHash })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
  });

  it('lets only one of concurrent uses through, replaces an unused token by a newer one, and refuses one after 15 minutes', async () => {
    const { email } = await signUpAndIn();
    const raced = await client.request(SignInTokenIssue, { email });
    if (!raced.accountExists) throw new Error('expected a token');
    secretsHandedOut.push(raced.token);
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => client.request(SignInTokenRedeem, { tokenHash: sha256(raced.token) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);

    const replaced = await client.request(SignInTokenIssue, { email });
    const latest = await client.request(SignInTokenIssue, { email });
    if (!replaced.accountExists || !latest.accountExists) throw new Error('expected tokens');
    secretsHandedOut.push(replaced.token, latest.token);
    await expect(
      client.request(SignInTokenRedeem, { tokenHash: sha256(replaced.token) }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });

    // Another account's token, issued at the same moment, is refused once 15 minutes have passed
    // (the periodic purge may delete it first: the answer is the same).
    const { email: otherEmail } = await signUpAndIn();
    const expiring = await client.request(SignInTokenIssue, { email: otherEmail });
    if (!expiring.accountExists) throw new Error('expected a token');
    secretsHandedOut.push(expiring.token);
    clockOffsetMs += 15 * MINUTE - 5000;
    const signedIn = await client.request(SignInTokenRedeem, { tokenHash: sha256(latest.token) });
    secretsHandedOut.push(signedIn.session.token);
    clockOffsetMs += 6000;
    await expect(
      client.request(SignInTokenRedeem, { tokenHash: sha256(expiring.token) }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

describe('sign-in link requests per address', () => {
  it('allow 3 per address in 15 minutes, known or not, count a retry once, and free up as the window slides', async () => {
    const { email } = await signUpAndIn();
    const nobody = uniqueEmail('nobody');
    const ids = Array.from({ length: 4 }, () => randomUUID());
    for (const requestId of ids.slice(0, 3)) {
      const issued = await client.request(SignInTokenIssue, { email, requestId });
      if (!issued.accountExists) throw new Error('expected a token');
      secretsHandedOut.push(issued.token);
      // An address without an account is counted the same way (and answers accountExists: false).
      expect(await client.request(SignInTokenIssue, { email: nobody, requestId: randomUUID() })).toEqual({
        accountExists: false,
      });
    }
    // The fourth: refused alike for both addresses (the normalised address counts: case is ignored).
    await expect(
      client.request(SignInTokenIssue, { email: email.toUpperCase(), requestId: ids[3] }),
    ).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(
      client.request(SignInTokenIssue, { email: nobody, requestId: randomUUID() }),
    ).rejects.toMatchObject({ code: 'rate_limited' });
    // A retry of the second request (the mailer after a failed send) keeps its place: it is let through.
    const retried = await client.request(SignInTokenIssue, { email, requestId: ids[1] });
    if (!retried.accountExists) throw new Error('expected a token');
    secretsHandedOut.push(retried.token);
    // Another address is not affected.
    const { email: other } = await signUpAndIn();
    expect((await client.request(SignInTokenIssue, { email: other })).accountExists).toBe(true);

    // Only the address's SHA-256 is stored, never the address (read before the clock moves: the
    // purge, every 100 ms here, deletes requests that have left the window).
    const stored = await db.query<{ email_hash: string }>(
      'select email_hash from key.sign_in_link_requests where request_id = $1',
      [ids[0]],
    );
    expect(stored.rows[0]?.email_hash).toMatch(/^[0-9a-f]{64}$/);

    // 15 minutes after the first three, the window has slid past them: links again.
    clockOffsetMs += 15 * MINUTE + 1000;
    const later = await client.request(SignInTokenIssue, { email, requestId: randomUUID() });
    if (!later.accountExists) throw new Error('expected a token');
    secretsHandedOut.push(later.token);
  });
});

describe('an account’s keys', () => {
  it('creates named keys, lists them without secrets, and revokes only its own', async () => {
    const owner = await signUpAndIn();
    const other = await signUpAndIn();
    const first = await client.request(AccountKeyCreate, { accountId: owner.accountId, name: '  ci  ' });
    const second = await client.request(AccountKeyCreate, { accountId: owner.accountId });
    secretsHandedOut.push(first.apiKey, second.apiKey);
    expect(first).toMatchObject({ name: 'ci', keyPrefix: first.apiKey.slice(0, 12) });
    expect(first.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(second.name).toBeNull();

    // Free plan: the key exists but has no API access.
    expect(await client.request(KeyVerify, { keyHash: sha256(first.apiKey) })).toMatchObject({
      accountId: owner.accountId,
      apiAccess: false,
    });

    // "Last used" is written off the verification's path: it shows up in the list shortly after.
    const listKeys = () => client.request(AccountKeysList, { accountId: owner.accountId });
    await expect
      .poll(async () => (await listKeys()).keys.find((k) => k.keyId === first.keyId)?.lastUsedAt, {
        timeout: 3000,
        interval: 20,
      })
      .toMatch(/^\d{4}-\d\d-\d\dT/);
    const listed = await listKeys();
    expect(listed.keys.map((k) => k.keyId)).toEqual([second.keyId, first.keyId]);
    expect(listed.keys[1]).toEqual({
      keyId: first.keyId,
      name: 'ci',
      keyPrefix: first.keyPrefix,
      createdAt: first.createdAt,
      lastUsedAt: expect.any(String) as unknown,
      revoked: false,
      revokedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(first.apiKey.slice(12));
    expect(JSON.stringify(listed)).not.toContain(sha256(first.apiKey));
    expect((await client.request(AccountKeysList, { accountId: other.accountId })).keys).toEqual([]);

    // Another account's key id is not found, and the key keeps working.
    await expect(
      client.request(AccountKeyRevoke, { accountId: other.accountId, keyId: first.keyId }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await client.request(KeyVerify, { keyHash: sha256(first.apiKey) });

    const revoked = await client.request(AccountKeyRevoke, {
      accountId: owner.accountId,
      keyId: first.keyId,
    });
    expect(revoked).toMatchObject({ keyId: first.keyId, accountId: owner.accountId, alreadyRevoked: false });
    await expect
      .poll(() => revokedEvents.find((e) => e.keyId === first.keyId), { timeout: 2000 })
      .toEqual({
        keyId: first.keyId,
        keyHash: sha256(first.apiKey),
        accountId: owner.accountId,
        revokedAt: revoked.revokedAt,
      });
    await expect(client.request(KeyVerify, { keyHash: sha256(first.apiKey) })).rejects.toMatchObject({
      code: 'unauthenticated',
    });

    const after = await client.request(AccountKeysList, { accountId: owner.accountId });
    expect(after.keys.find((k) => k.keyId === first.keyId)).toMatchObject({
      revoked: true,
      revokedAt: revoked.revokedAt,
    });
    expect(after.keys.find((k) => k.keyId === second.keyId)).toMatchObject({
      revoked: false,
      lastUsedAt: null,
    });

    await expect(client.request(AccountKeyCreate, { accountId: randomUUID() })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('plans and quotas', () => {
  it('grants exactly 3 of 100 parallel reservations on the free plan', async () => {
    const { accountId } = await signUpAndIn();
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () => client.request(DocumentQuotaReserve, { accountId })),
    );
    const granted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(granted).toHaveLength(3);
    expect(new Set(granted.map((r) => r.value.used))).toEqual(new Set([1, 2, 3]));
    expect(
      refused.every((r) => r.reason instanceof ServiceError && r.reason.code === 'permission_denied'),
    ).toBe(true);
    expect(refused[0]?.reason).toMatchObject({
      message: expect.stringMatching(/free plan allows 3 documents a month/) as unknown,
    });

    const usage = await client.request(AccountUsageGet, { accountId });
    expect(usage).toMatchObject({
      plan: 'free',
      limits: { documentsPerMonth: 3, apiAccess: false, maxFileBytes: 10 * 1024 * 1024 },
      documentsUsed: 3,
      documentsRemaining: 0,
    });
  });

  it('makes room again on release, once per reservation, and only for the owner', async () => {
    const { accountId } = await signUpAndIn();
    const other = await signUpAndIn();
    const reservations = [];
    for (let i = 0; i < 3; i++) reservations.push(await client.request(DocumentQuotaReserve, { accountId }));
    const [first] = reservations;
    if (!first) throw new Error('no reservation');
    await expect(client.request(DocumentQuotaReserve, { accountId })).rejects.toMatchObject({
      code: 'permission_denied',
    });

    await expect(
      client.request(DocumentQuotaRelease, {
        accountId: other.accountId,
        reservationId: first.reservationId,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const releases = await Promise.all(
      Array.from({ length: 5 }, () =>
        client.request(DocumentQuotaRelease, { accountId, reservationId: first.reservationId }),
      ),
    );
    expect(releases.filter((r) => !r.alreadyReleased)).toHaveLength(1);
    expect((await client.request(AccountUsageGet, { accountId })).documentsUsed).toBe(2);

    const again = await client.request(DocumentQuotaReserve, { accountId });
    expect(again.used).toBe(3);
    await expect(client.request(DocumentQuotaReserve, { accountId })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    await expect(
      client.request(DocumentQuotaRelease, { accountId, reservationId: randomUUID() }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('starts each UTC month at 0', async () => {
    const { accountId } = await signUpAndIn();
    for (let i = 0; i < 3; i++) await client.request(DocumentQuotaReserve, { accountId });
    const before = await client.request(AccountUsageGet, { accountId });
    expect(before.documentsRemaining).toBe(0);

    clockOffsetMs += Date.parse(before.resetsAt) - now().getTime() + 1;
    const next = await client.request(AccountUsageGet, { accountId });
    expect(next.month).not.toBe(before.month);
    expect(next).toMatchObject({ documentsUsed: 0, documentsRemaining: 3 });
    const reserved = await client.request(DocumentQuotaReserve, { accountId });
    expect(reserved).toMatchObject({ month: next.month, used: 1, limit: 3 });
  });

  it('follows the plan: pro stops at 50 of 60 parallel, business counts without a limit', async () => {
    const { accountId, email } = await signUpAndIn();
    expect(await client.request(AccountPlanSet, { email, plan: 'pro' })).toEqual({
      accountId,
      plan: 'pro',
      previousPlan: 'free',
    });
    const pro = await Promise.allSettled(
      Array.from({ length: 60 }, () => client.request(DocumentQuotaReserve, { accountId })),
    );
    expect(pro.filter((r) => r.status === 'fulfilled')).toHaveLength(50);

    await client.request(AccountPlanSet, { email, plan: 'business' });
    const business = await Promise.all(
      Array.from({ length: 20 }, () => client.request(DocumentQuotaReserve, { accountId })),
    );
    expect(business.every((r) => r.limit === null && r.used === null)).toBe(true);
    expect(await client.request(AccountUsageGet, { accountId })).toMatchObject({
      plan: 'business',
      limits: { documentsPerMonth: null, apiAccess: true, maxFileBytes: 25 * 1024 * 1024 },
      documentsUsed: 70,
      documentsRemaining: null,
    });
    await expect(
      client.request(AccountPlanSet, { email: uniqueEmail('none'), plan: 'pro' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('counts a business month by its reservations and measures them against a smaller plan it moves to', async () => {
    const { accountId, email } = await signUpAndIn();
    await client.request(AccountPlanSet, { email, plan: 'business' });
    // No usage row on the business plan: these only record reservations, in parallel.
    const business = await Promise.all(
      Array.from({ length: 48 }, () => client.request(DocumentQuotaReserve, { accountId })),
    );
    expect(new Set(business.map((r) => r.reservationId)).size).toBe(48);
    const [first, second] = business;
    if (!first || !second) throw new Error('no reservation');
    const releases = await Promise.all(
      Array.from({ length: 3 }, () =>
        client.request(DocumentQuotaRelease, { accountId, reservationId: first.reservationId }),
      ),
    );
    expect(releases.filter((r) => !r.alreadyReleased)).toHaveLength(1);
    expect((await client.request(AccountUsageGet, { accountId })).documentsUsed).toBe(47);

    // On pro (50 a month) the 47 count: 3 of 10 parallel reservations are granted.
    await client.request(AccountPlanSet, { email, plan: 'pro' });
    const pro = await Promise.allSettled(
      Array.from({ length: 10 }, () => client.request(DocumentQuotaReserve, { accountId })),
    );
    const granted = pro.filter((r) => r.status === 'fulfilled');
    expect(granted).toHaveLength(3);
    expect(new Set(granted.map((r) => r.value.used))).toEqual(new Set([48, 49, 50]));
    expect(await client.request(AccountUsageGet, { accountId })).toMatchObject({
      documentsUsed: 50,
      documentsRemaining: 0,
    });
    // A release on pro (of a reservation made on business) makes room for exactly one more.
    await client.request(DocumentQuotaRelease, { accountId, reservationId: second.reservationId });
    expect((await client.request(DocumentQuotaReserve, { accountId })).used).toBe(50);
    await expect(client.request(DocumentQuotaReserve, { accountId })).rejects.toMatchObject({
      code: 'permission_denied',
    });
  });

  it('counts documents made without a reservation from their events, once each, in the month they were signed', async () => {
    const { accountId, email } = await signUpAndIn();
    await client.request(AccountPlanSet, { email, plan: 'business' });
    const signedAt = now();
    const lastMonth = new Date(Date.UTC(signedAt.getUTCFullYear(), signedAt.getUTCMonth(), 0, 12));
    const recorded = (
      documentId: string,
      fields: Partial<z.input<(typeof DocumentSigned)['payload']>> = {},
    ) =>
      client.publish(DocumentSigned, {
        documentId,
        accountId,
        auditId: 'DOC-AAAA-BBBB-CCCC',
        fileHash: `sha256:${'0'.repeat(64)}`,
        signedAt: signedAt.toISOString(),
        countFromRecord: true,
        ...fields,
      });
    const documents = Array.from({ length: 40 }, () => randomUUID());
    await Promise.all(documents.map((id) => recorded(id)));
    // The same event again (a redelivery, or published twice): counted once.
    await recorded(documents[0] ?? '');
    // A document that was reserved before signing: its event does not count it again.
    // (Business: a reservation is recorded but measured against no limit, so no count comes back.)
    const reserved = await client.request(DocumentQuotaReserve, { accountId });
    expect(reserved.reservationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(reserved).toMatchObject({ used: null, limit: null });
    await recorded(randomUUID(), { countFromRecord: undefined });
    // Signed on the last day of the previous month: counted there.
    await recorded(randomUUID(), { signedAt: lastMonth.toISOString() });
    // An account that no longer exists (or never did): skipped, without holding up the others.
    await recorded(randomUUID(), { accountId: randomUUID() });
    await recorded(documents[1] ?? '');

    const byMonth = async () =>
      (
        await db.query<{ month: string; counted: string; from_record: string }>(
          `select to_char(month, 'YYYY-MM') as month, count(*) as counted, count(document_id) as from_record
           from key.document_reservations where account_id = $1 group by month order by month`,
          [accountId],
        )
      ).rows;
    const expected = [
      { month: lastMonth.toISOString().slice(0, 7), counted: '1', from_record: '1' },
      { month: signedAt.toISOString().slice(0, 7), counted: '41', from_record: '40' },
    ];
    await expect.poll(byMonth, { timeout: 10_000 }).toEqual(expected);
    // Settled: every event was handled (the last one was a repeat), and the counts stayed.
    const jsm = await client.connection.jetstreamManager();
    await expect
      .poll(async () => {
        const consumer = await jsm.consumers.info(client.streamName, 'key-count-documents');
        return consumer.num_pending + consumer.num_ack_pending;
      })
      .toBe(0);
    expect(await byMonth()).toEqual(expected);
    expect((await client.request(AccountUsageGet, { accountId })).documentsUsed).toBe(41);

    // Moved to pro (50 a month) with the 41: a document signed on business and recorded after the
    // move counts against the pro month too, past its limit if need be.
    await client.request(AccountPlanSet, { email, plan: 'pro' });
    await Promise.all(Array.from({ length: 12 }, () => recorded(randomUUID())));
    await expect
      .poll(async () => (await client.request(AccountUsageGet, { accountId })).documentsUsed, {
        timeout: 10_000,
      })
      .toBe(53);
    await expect(client.request(DocumentQuotaReserve, { accountId })).rejects.toMatchObject({
      code: 'permission_denied',
    });
  });
});

describe('operator password', () => {
  it('sets a password on a CLI-made account and ends the sessions of an account whose password is reset', async () => {
    const email = uniqueEmail('operator');
    await client.request(KeyCreate, { email, plan: 'business' });
    await client.request(AccountPasswordSet, { email, password: PASSWORD });
    const signedIn = await client.request(AccountSignIn, { email, password: PASSWORD });
    secretsHandedOut.push(signedIn.session.token);
    expect(signedIn.plan).toBe('business');

    const reset = await client.request(AccountPasswordSet, { email, password: 'a brand new password' });
    expect(reset).toEqual({ accountId: signedIn.accountId, sessionsEnded: 1 });
    await expect(
      client.request(SessionVerify, { tokenHash: sha256(signedIn.session.token) }),
    ).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(
      client.request(AccountPasswordSet, { email: uniqueEmail('x'), password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('operator CLI for accounts', () => {
  it('sets a password read from stdin and changes a plan', async () => {
    const email = uniqueEmail('cli-account');
    await client.request(KeyCreate, { email });
    const password = 'typed into the terminal';
    const set = await runCliProcess(['accounts', 'set-password', '--email', email], cliEnv, `${password}\n`);
    expect(set.code).toBe(0);
    expect(set.stderr).toContain('Password set for account');
    expect(`${set.stdout}${set.stderr}`).not.toContain(password);
    const signedIn = await client.request(AccountSignIn, { email, password });
    secretsHandedOut.push(signedIn.session.token);

    const plan = await runCliProcess(
      ['accounts', 'set-plan', '--email', email, '--plan', 'business'],
      cliEnv,
    );
    expect(plan.code).toBe(0);
    expect(plan.stdout.trim()).toBe(signedIn.accountId);
    expect(plan.stderr).toContain('plan free -> business');
    expect((await client.request(AccountUsageGet, { accountId: signedIn.accountId })).plan).toBe('business');

    const short = await runCliProcess(['accounts', 'set-password', '--email', email], cliEnv, 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('at least 8 characters');
    const unknown = await runCliProcess(
      ['accounts', 'set-plan', '--email', uniqueEmail('no'), '--plan', 'pro'],
      cliEnv,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('error: account not found');
  });
});

describe('storage of secrets', () => {
  it('keeps no session token, sign-in token, API key or password in plain text, only hashes', async () => {
    expect(secretsHandedOut.length).toBeGreaterThan(10);
    const dump = await db.query<{ row: string }>(
      `select row_to_json(t)::text as row from key.sessions t
       union all select row_to_json(t)::text from key.sign_in_tokens t
       union all select row_to_json(t)::text from key.accounts t
       union all select row_to_json(t)::text from key.api_keys t`,
    );
    const text = dump.rows.map((r) => r.row).join('\n');
    expect(text).not.toContain(PASSWORD);
    for (const secret of secretsHandedOut) {
      // CSRF secrets are kept as they are (documented); every other secret only as its hash.
      if (text.includes(`"csrf_secret":"${secret}"`)) continue;
      expect(text).not.toContain(secret.slice(-30));
    }
    const hashes = await db.query<{ password_hash: string }>(
      'select password_hash from key.accounts where password_hash is not null limit 1',
    );
    expect(hashes.rows[0]?.password_hash).toMatch(
      /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/,
    );
  });
});

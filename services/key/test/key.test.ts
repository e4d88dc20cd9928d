import { createHash, randomUUID } from 'node:crypto';
import { connectBus, decodeJson, encodeJson, ZEnvelope, type Bus } from '@esign/bus';
import { KeyCreate, KeyRevoke, KeyRevoked, KeyVerify } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { createTestDatabase, testNatsUrl, uniqueBusPrefix, type TestDatabase } from '@esign/testing';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeyServiceConfig } from '../src/config';
import { startKeyService, type KeyService } from '../src/start';
import { runCliProcess } from './helpers';

type TRevokedEvent = z.infer<(typeof KeyRevoked)['payload']>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const uniqueEmail = (name: string) => `${name}.${randomUUID().slice(0, 8)}@example.com`;

let database: TestDatabase;
let sut: KeyService;
let client: Bus;
let natsUrl: string;
let prefix: string;
const revokedEvents: TRevokedEvent[] = [];
const issuedKeys: string[] = [];

const createKey = async (request: z.input<(typeof KeyCreate)['request']>) => {
  const created = await client.request(KeyCreate, request);
  issuedKeys.push(created.apiKey);
  return created;
};

beforeAll(async () => {
  natsUrl = await testNatsUrl();
  database = await createTestDatabase('key_t');
  prefix = uniqueBusPrefix('key');
  sut = await startKeyService(
    loadKeyServiceConfig({
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      LOG_LEVEL: 'error',
    }),
  );
  client = await connectBus({
    url: natsUrl,
    name: 'key-test',
    prefix,
    logger: createLogger({ service: 'key-test', level: 'error' }),
    timeoutMs: 5000,
  });
  client.subscribe(KeyRevoked, (event) => void revokedEvents.push(event));
  await client.connection.flush();
});

afterAll(async () => {
  await client?.drain();
  await sut?.stop();
  await database?.drop();
});

describe('key.create and key.verify', () => {
  it('creates an account and a key, and verifies the key by its hash', async () => {
    const email = uniqueEmail('ada');
    const created = await createKey({ email, plan: 'business', label: 'ci' });

    expect(created.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(created.keyPrefix).toBe(created.apiKey.slice(0, 12));
    expect(created.accountCreated).toBe(true);
    expect(created.plan).toBe('business');
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const principal = await client.request(KeyVerify, { keyHash: sha256(created.apiKey) });
    expect(principal).toEqual({
      accountId: created.accountId,
      keyId: created.keyId,
      email,
      plan: 'business',
      apiAccess: true,
    });
  });

  it('gives API access to the business plan only; a new account without a plan is free', async () => {
    const free = await createKey({ email: uniqueEmail('free') });
    const pro = await createKey({ email: uniqueEmail('pro'), plan: 'pro' });
    expect(free.plan).toBe('free');

    const freePrincipal = await client.request(KeyVerify, { keyHash: sha256(free.apiKey) });
    const proPrincipal = await client.request(KeyVerify, { keyHash: sha256(pro.apiKey) });
    expect(freePrincipal).toMatchObject({ plan: 'free', apiAccess: false });
    expect(proPrincipal).toMatchObject({ plan: 'pro', apiAccess: false });
  });

  it('adds a second key to an existing account, keeping its plan unless a plan is given', async () => {
    const email = uniqueEmail('grace');
    const first = await createKey({ email, plan: 'pro' });
    const second = await createKey({ email: email.toUpperCase() });

    expect(second.accountCreated).toBe(false);
    expect(second.accountId).toBe(first.accountId);
    expect(second.keyId).not.toBe(first.keyId);
    expect(second.apiKey).not.toBe(first.apiKey);
    expect(second.plan).toBe('pro');

    const upgraded = await createKey({ email, plan: 'business' });
    expect(upgraded).toMatchObject({ accountId: first.accountId, accountCreated: false, plan: 'business' });
    // Every key of the account follows the account's plan.
    const firstPrincipal = await client.request(KeyVerify, { keyHash: sha256(first.apiKey) });
    expect(firstPrincipal).toMatchObject({ keyId: first.keyId, plan: 'business', apiAccess: true });
    const secondPrincipal = await client.request(KeyVerify, { keyHash: sha256(second.apiKey) });
    expect(secondPrincipal).toMatchObject({ keyId: second.keyId, accountId: first.accountId, email });
  });

  it('stores emails lowercased', async () => {
    const email = uniqueEmail('MixedCase');
    const created = await createKey({ email: email.toUpperCase(), plan: 'business' });
    const principal = await client.request(KeyVerify, { keyHash: sha256(created.apiKey) });
    expect(principal.email).toBe(email.toLowerCase());
  });

  it('rejects an invalid email and an unknown plan sent past the client-side check', async () => {
    // The bus client validates too, so the malformed requests go out as raw NATS messages.
    const raw = async (body: unknown) => {
      const reply = await client.connection.request(client.wire(KeyCreate.subject), encodeJson(body), {
        timeout: 5000,
      });
      return ZEnvelope.parse(decodeJson(reply.data));
    };
    expect(await raw({ email: 'not-an-email' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', field: 'email' },
    });
    expect(await raw({ email: uniqueEmail('x'), plan: 'gold' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', field: 'plan' },
    });
  });

  it('answers unauthenticated for an unknown key hash', async () => {
    await expect(client.request(KeyVerify, { keyHash: sha256('svc_live_unknown') })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
  });

  it('records when a key was last used', async () => {
    const created = await createKey({ email: uniqueEmail('used'), plan: 'business' });
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const before = await db.query<{ last_used_at: Date | null }>(
        'select last_used_at from key.api_keys where id = $1',
        [created.keyId],
      );
      expect(before.rows[0]?.last_used_at).toBeNull();
      await client.request(KeyVerify, { keyHash: sha256(created.apiKey) });
      // Written off the reply's path: it lands shortly after the answer.
      await expect
        .poll(
          async () =>
            (
              await db.query<{ last_used_at: Date | null }>(
                'select last_used_at from key.api_keys where id = $1',
                [created.keyId],
              )
            ).rows[0]?.last_used_at,
          { timeout: 2000, interval: 20 },
        )
        .toBeInstanceOf(Date);
    } finally {
      await db.end();
    }
  });
});

describe('key.revoke', () => {
  it('revokes by key id, announces it, and the key no longer verifies', async () => {
    const created = await createKey({ email: uniqueEmail('rev-id'), plan: 'business' });
    const keyHash = sha256(created.apiKey);

    const revoked = await client.request(KeyRevoke, { keyId: created.keyId });
    expect(revoked).toMatchObject({
      keyId: created.keyId,
      accountId: created.accountId,
      alreadyRevoked: false,
    });

    await expect
      .poll(() => revokedEvents.find((e) => e.keyId === created.keyId), { timeout: 1000 })
      .toEqual({
        keyId: created.keyId,
        keyHash,
        accountId: created.accountId,
        revokedAt: revoked.revokedAt,
      });

    await expect(client.request(KeyVerify, { keyHash })).rejects.toMatchObject({ code: 'unauthenticated' });

    const again = await client.request(KeyRevoke, { keyId: created.keyId });
    expect(again).toEqual({ ...revoked, alreadyRevoked: true });
  });

  it('revokes by key hash, leaving the account’s other keys valid', async () => {
    const email = uniqueEmail('rev-hash');
    const kept = await createKey({ email, plan: 'business' });
    const gone = await createKey({ email });
    const goneHash = sha256(gone.apiKey);

    const revoked = await client.request(KeyRevoke, { keyHash: goneHash });
    expect(revoked).toMatchObject({ keyId: gone.keyId, alreadyRevoked: false });
    await expect
      .poll(() => revokedEvents.find((e) => e.keyHash === goneHash)?.keyId, { timeout: 1000 })
      .toBe(gone.keyId);

    await expect(client.request(KeyVerify, { keyHash: goneHash })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    const principal = await client.request(KeyVerify, { keyHash: sha256(kept.apiKey) });
    expect(principal.keyId).toBe(kept.keyId);

    const again = await client.request(KeyRevoke, { keyHash: goneHash });
    expect(again.alreadyRevoked).toBe(true);
    expect(again.revokedAt).toBe(revoked.revokedAt);
  });

  it('answers not_found for an unknown key id or hash', async () => {
    await expect(client.request(KeyRevoke, { keyId: randomUUID() })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(client.request(KeyRevoke, { keyHash: sha256('nope') })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('storage', () => {
  it('holds no plain key anywhere in the key schema, only SHA-256 hashes', async () => {
    await createKey({ email: uniqueEmail('secret'), plan: 'business' });
    expect(issuedKeys.length).toBeGreaterThan(5);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const dump = await db.query<{ row: string }>(
        `select row_to_json(k)::text as row from key.api_keys k
         union all select row_to_json(a)::text from key.accounts a`,
      );
      const text = dump.rows.map((r) => r.row).join('\n');
      for (const apiKey of issuedKeys) {
        expect(text).not.toContain(apiKey);
        expect(text).not.toContain(apiKey.slice('svc_live_'.length));
      }
      const hashes = await db.query<{ key_hash: string; prefix: string }>(
        'select key_hash, prefix from key.api_keys',
      );
      expect(hashes.rows.map((r) => r.key_hash).sort()).toEqual(issuedKeys.map(sha256).sort());
      for (const row of hashes.rows) expect(row.prefix).toHaveLength(12);
    } finally {
      await db.end();
    }
  });
});

describe('operator CLI', () => {
  const cliEnv = () => ({ NATS_URL: natsUrl, BUS_PREFIX: prefix });

  it('creates a key, printing it alone on the last line of stdout and nowhere else', async () => {
    const email = uniqueEmail('cli');
    const result = await runCliProcess(
      ['keys', 'create', '--email', email, '--plan', 'business', '--label', 'ops'],
      cliEnv(),
    );
    expect(result.stderr).toContain(email);
    expect(result.code).toBe(0);

    const lines = result.stdout.trimEnd().split('\n');
    const apiKey = lines.at(-1) ?? '';
    expect(apiKey).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(result.stdout.split(apiKey)).toHaveLength(2);
    expect(result.stderr).not.toContain(apiKey.slice('svc_live_'.length));
    issuedKeys.push(apiKey);

    const principal = await client.request(KeyVerify, { keyHash: sha256(apiKey) });
    expect(principal).toMatchObject({ email, plan: 'business', apiAccess: true });

    // Revoke with the plain key: the CLI hashes it and sends only the hash.
    const revoke = await runCliProcess(['keys', 'revoke', apiKey], cliEnv());
    expect(revoke.code).toBe(0);
    expect(revoke.stdout.trim()).toBe(principal.keyId);
    expect(revoke.stderr).toContain('Revoked key');
    expect(`${revoke.stdout}${revoke.stderr}`).not.toContain(apiKey);
    await expect(client.request(KeyVerify, { keyHash: sha256(apiKey) })).rejects.toMatchObject({
      code: 'unauthenticated',
    });

    // Revoke again by id: already revoked, still success.
    const again = await runCliProcess(['keys', 'revoke', principal.keyId], cliEnv());
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already revoked');
  });

  it('exits 1 with usage on bad arguments, and prints usage on --help', async () => {
    const badPlan = await runCliProcess(
      ['keys', 'create', '--email', uniqueEmail('p'), '--plan', 'gold'],
      cliEnv(),
    );
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toContain('--plan must be free, pro or business');
    expect(badPlan.stderr).toContain('Usage:');
    expect(badPlan.stdout).toBe('');

    const badEmail = await runCliProcess(['keys', 'create', '--email', 'nope', '--plan', 'pro'], cliEnv());
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain('--email is not a valid email address');

    const unknown = await runCliProcess(['keys', 'revoke', randomUUID()], cliEnv());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('error: API key not found');

    const help = await runCliProcess(['--help'], cliEnv());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('pnpm cli keys create --email <email>');
  });

  it('says clearly when NATS cannot be reached', async () => {
    const result = await runCliProcess(['keys', 'create', '--email', uniqueEmail('down'), '--plan', 'pro'], {
      NATS_URL: 'nats://127.0.0.1:1',
      BUS_PREFIX: prefix,
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'error: cannot reach NATS at nats://127.0.0.1:1: is the stack running (pnpm dev)?',
    );
    expect(result.stdout).toBe('');
  });
});

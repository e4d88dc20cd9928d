import { randomUUID } from 'node:crypto';
import { connectBus, type Bus } from '@esign/bus';
import {
  AccountEmbedOriginsGet,
  AccountEmbedOriginsSet,
  AccountSignIn,
  AccountSignUp,
  ServiceError,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { createTestDatabase, testNatsUrl, uniqueBusPrefix, type TestDatabase } from '@esign/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeyServiceConfig } from '../src/config';
import { startKeyService, type KeyService } from '../src/start';

let database: TestDatabase;
let sut: KeyService;
let client: Bus;

const newAccount = async (): Promise<string> => {
  const email = `embed.${randomUUID().slice(0, 8)}@example.com`;
  await client.request(AccountSignUp, { email, password: 'correct horse battery staple' });
  const signedIn = await client.request(AccountSignIn, {
    email,
    password: 'correct horse battery staple',
    userAgent: 'vitest',
  });
  return signedIn.accountId;
};

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: unknown) => (err instanceof ServiceError ? `${err.code}: ${err.message}` : String(err)),
  );

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  database = await createTestDatabase('key_embed');
  const prefix = uniqueBusPrefix('keyembed');
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
    name: 'key-embed-test',
    prefix,
    logger: createLogger({ service: 'key-embed-test', level: 'error' }),
    timeoutMs: 20_000,
  });
});

afterAll(async () => {
  await client?.drain();
  await sut?.stop();
  await database?.drop();
});

describe('embed origins of an account', () => {
  it('start empty, are replaced as a whole, normalised as browsers name origins, and stay per account', async () => {
    const accountId = await newAccount();
    const other = await newAccount();

    expect(await client.request(AccountEmbedOriginsGet, { accountId })).toEqual({ accountId, origins: [] });
    const set = await client.request(AccountEmbedOriginsSet, {
      accountId,
      origins: [
        'https://App.Example.com:443',
        'http://localhost:3000/',
        'https://app.example.com',
        'http://127.0.0.2:8081',
      ],
    });

    expect(set.origins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
      'http://127.0.0.2:8081',
    ]);
    expect((await client.request(AccountEmbedOriginsGet, { accountId })).origins).toEqual(set.origins);
    expect((await client.request(AccountEmbedOriginsGet, { accountId: other })).origins).toEqual([]);

    await client.request(AccountEmbedOriginsSet, { accountId, origins: ['https://shop.example.org'] });
    expect((await client.request(AccountEmbedOriginsGet, { accountId })).origins).toEqual([
      'https://shop.example.org',
    ]);
    await client.request(AccountEmbedOriginsSet, { accountId, origins: [] });
    expect((await client.request(AccountEmbedOriginsGet, { accountId })).origins).toEqual([]);
  });

  it('refuses what is not an exact origin, plain http off localhost, and more than 10', async () => {
    const accountId = await newAccount();
    const refused = async (origins: string[]) =>
      codeOf(client.request(AccountEmbedOriginsSet, { accountId, origins }));

    expect(await refused(['https://app.example.com/embed'])).toMatch(/^invalid_argument: .*not an origin/);
    expect(await refused(['https://user:pw@app.example.com'])).toMatch(/^invalid_argument/);
    expect(await refused(['https://app.example.com?x=1'])).toMatch(/^invalid_argument/);
    expect(await refused(['app.example.com'])).toMatch(/^invalid_argument/);
    expect(await refused(['ftp://app.example.com'])).toMatch(/^invalid_argument/);
    expect(await refused(['http://app.example.com'])).toMatch(/^invalid_argument: .*localhost only/);
    expect(await refused(Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`))).toMatch(
      /^invalid_argument: .*at most 10/,
    );
    expect((await client.request(AccountEmbedOriginsGet, { accountId })).origins).toEqual([]);
  });

  it('answers not_found for an unknown account', async () => {
    const accountId = randomUUID();

    expect(await codeOf(client.request(AccountEmbedOriginsGet, { accountId }))).toMatch(/^not_found/);
    expect(
      await codeOf(client.request(AccountEmbedOriginsSet, { accountId, origins: ['https://a.example.com'] })),
    ).toMatch(/^not_found/);
  });
});

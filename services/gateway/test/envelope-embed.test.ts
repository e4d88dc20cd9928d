import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  AccountEmbedOriginsGet,
  AccountEmbedOriginsSet,
  EnvelopeFindByToken,
  KeyVerify,
  ServiceError,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { z } from 'zod';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * Embedded signing at the gateway's edge (real NATS, the gateway's HTTP): the account's embed origins
 * through the public API (checked and normalised here, kept by a stand-in of the key service that
 * validates with the real contract), and what the page of a link answers: frame-ancestors of the
 * account's origins for an embedded link only, a used embedded link refused, the recipient view
 * listing the origins for the page's postMessage. document-store is a stand-in answering
 * `envelope.find-by-token` from a table of links. The whole flow runs in test/e2e/envelope-embed.test.ts.
 */

type TLink = z.infer<(typeof EnvelopeFindByToken)['reply']>;

const ACCOUNT = randomUUID();
const API_KEY = `svc_live_${'e'.repeat(32)}`;
const origins = new Map<string, string[]>();
/** How often the key service stand-in was asked for an account's origins. */
let originReads = 0;
const links = new Map<string, TLink>();
let s3: TestS3;
let services: Bus;
let gateway: RunningGateway;

const tokenOf = (letter: string) => letter.repeat(43);
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

const linkFor = (over: { embedded: boolean; linkUsedAt?: string | null; status?: 'signed' }): TLink => ({
  envelopeId: `env_${'E'.repeat(24)}`,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  accountId: ACCOUNT,
  envelopeStatus: 'pending',
  senderEmail: 'sender@example.com',
  subject: 'Lease',
  message: null,
  fileName: 'lease.pdf',
  pageCount: 1,
  expiresAt: '2026-12-26T10:00:00.000Z',
  objectKey: 'pending/x.pdf',
  revision: 0,
  recipient: {
    recipientId: `rcp_${'R'.repeat(24)}`,
    name: 'Eve',
    email: 'eve@example.com',
    role: 'signer',
    order: 1,
    status: over.status ?? 'notified',
    requireEmailCode: false,
    embedded: over.embedded,
    fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30, required: true }],
    notifiedAt: '2026-11-26T10:00:00.000Z',
    viewedAt: null,
    actedAt: null,
    declineReason: null,
  },
  others: [],
  codeRequired: false,
  embedded: over.embedded,
  ...(over.embedded ? { linkUsedAt: over.linkUsedAt ?? null } : {}),
});

const EMAILED = tokenOf('a');
const EMBEDDED = tokenOf('b');
const USED = tokenOf('c');
const ACTED = tokenOf('d');

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gwe');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  links.set(hashOf(EMAILED), linkFor({ embedded: false }));
  links.set(hashOf(EMBEDDED), linkFor({ embedded: true }));
  links.set(hashOf(USED), linkFor({ embedded: true, linkUsedAt: '2026-11-26T10:01:00.000Z' }));
  links.set(hashOf(ACTED), linkFor({ embedded: true, status: 'signed' }));
  services = await connectBus({ url: natsUrl, name: 'stand-ins', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    endpoint(KeyVerify, () =>
      Promise.resolve({
        accountId: ACCOUNT,
        keyId: randomUUID(),
        email: 'sender@example.com',
        plan: 'business' as const,
        apiAccess: true,
      }),
    ),
    endpoint(AccountEmbedOriginsGet, (req) => {
      originReads += 1;
      return Promise.resolve({ accountId: req.accountId, origins: origins.get(req.accountId) ?? [] });
    }),
    endpoint(AccountEmbedOriginsSet, (req) => {
      origins.set(req.accountId, req.origins);
      return Promise.resolve({ accountId: req.accountId, origins: req.origins });
    }),
    endpoint(EnvelopeFindByToken, (req) => {
      const link = links.get(req.tokenHash);
      return link ? Promise.resolve(link) : Promise.reject(new ServiceError('not_found', 'no link'));
    }),
  ]);
  gateway = await startTestGateway({ natsUrl, prefix, s3 }, { KEY_CACHE_TTL_MS: '0' }, logger);
});

afterAll(async () => {
  await gateway?.stop();
  await services?.drain();
  await s3?.stop();
});

const setOrigins = (body: unknown) =>
  fetch(`${gateway.url}/api/v1/account/embed-origins`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const frameAncestorsOf = (res: Response) =>
  /frame-ancestors ([^;]+)/.exec(res.headers.get('content-security-policy') ?? '')?.[1];

describe('the embed origins of an account', () => {
  it('are set as a whole and read back as browsers name origins', async () => {
    const set = await setOrigins({ origins: ['https://App.Example.com:443/', 'http://localhost:3000'] });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ origins: ['https://app.example.com', 'http://localhost:3000'] });

    const read = await fetch(`${gateway.url}/api/v1/account/embed-origins`, {
      headers: { Authorization: `Bearer ${API_KEY}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ origins: ['https://app.example.com', 'http://localhost:3000'] });
  });

  it('refuses a path, plain http off localhost and more than 10, naming the origin at fault', async () => {
    const before = origins.get(ACCOUNT);
    const path = await setOrigins({ origins: ['https://ok.example.com', 'https://app.example.com/embed'] });
    const plain = await setOrigins({ origins: ['http://app.example.com'] });
    const many = await setOrigins({
      origins: Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`),
    });

    expect(path.status).toBe(400);
    expect(((await path.json()) as { error: string }).error).toMatch(/^origins\[1\]: .*not an origin/);
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: string }).error).toContain('http is allowed for localhost only');
    expect(many.status).toBe(400);
    expect(origins.get(ACCOUNT)).toEqual(before);
  });
});

describe('the page of a link', () => {
  it("lets the account's origins frame an embedded link's page only; an emailed link's is never framed", async () => {
    expect(
      (await setOrigins({ origins: ['https://app.example.com', 'https://shop.example.org'] })).status,
    ).toBe(200);

    const emailed = await fetch(`${gateway.url}/e/${EMAILED}`);
    const acted = await fetch(`${gateway.url}/e/${ACTED}`);

    expect(frameAncestorsOf(emailed)).toBe("'none'");
    expect(acted.status).toBe(410);
    expect(frameAncestorsOf(acted)).toBe('https://app.example.com https://shop.example.org');
  });

  it('refuses to load a used embedded link again, in a page the frame can show', async () => {
    expect((await setOrigins({ origins: ['https://app.example.com'] })).status).toBe(200);

    const used = await fetch(`${gateway.url}/e/${USED}`);

    expect(used.status).toBe(410);
    expect(frameAncestorsOf(used)).toBe('https://app.example.com');
    const html = await used.text();
    expect(html).toContain('already opened');
    // The signing page itself, told why, so that it can tell the framing site (one `error` event).
    const data = /<meta name="esign-embed" content="([^"]*)">/.exec(html)?.[1]?.replace(/&quot;/g, '"');
    expect(JSON.parse(data ?? 'null')).toMatchObject({
      origins: ['https://app.example.com'],
      refused: { status: 'used', title: 'Link already used' },
    });
  });

  it("writes the origins into an embedded link's page only", async () => {
    expect((await setOrigins({ origins: ['https://app.example.com'] })).status).toBe(200);

    const embedded = await (await fetch(`${gateway.url}/e/${EMBEDDED}`)).text();
    const emailed = await (await fetch(`${gateway.url}/e/${EMAILED}`)).text();

    expect(embedded).toContain(
      `<meta name="esign-embed" content="{&quot;origins&quot;:[&quot;https://app.example.com&quot;]}">`,
    );
    expect(emailed).not.toContain('esign-embed');
  });

  it('never lets an embedded page be framed while the account has no origin', async () => {
    expect((await setOrigins({ origins: [] })).status).toBe(200);

    const used = await fetch(`${gateway.url}/e/${USED}`);

    expect(frameAncestorsOf(used)).toBe("'none'");
  });

  it("gives an embedded link's page the origins it may post its events to, and an emailed link's none", async () => {
    expect((await setOrigins({ origins: ['https://app.example.com'] })).status).toBe(200);
    const view = (token: string) =>
      fetch(`${gateway.url}/envelope/api/recipient`, { headers: { 'X-Signing-Token': token } });

    const embedded = (await (await view(EMBEDDED)).json()) as { embedOrigins?: string[] };
    const emailed = (await (await view(EMAILED)).json()) as { embedOrigins?: string[] };

    expect(embedded.embedOrigins).toEqual(['https://app.example.com']);
    expect(emailed).not.toHaveProperty('embedOrigins');
  });
});

describe('the embed origins cache', () => {
  it('asks the key service once for repeated page loads, and uses a change made through this gateway at once', async () => {
    expect((await setOrigins({ origins: ['https://app.example.com'] })).status).toBe(200);
    const before = originReads;

    for (let i = 0; i < 3; i += 1) {
      const page = await fetch(`${gateway.url}/e/${USED}`);
      const view = await fetch(`${gateway.url}/envelope/api/recipient`, {
        headers: { 'X-Signing-Token': EMBEDDED },
      });
      expect(frameAncestorsOf(page)).toBe('https://app.example.com');
      expect(((await view.json()) as { embedOrigins?: string[] }).embedOrigins).toEqual([
        'https://app.example.com',
      ]);
    }
    expect(originReads).toBe(before);

    expect((await setOrigins({ origins: ['https://shop.example.org'] })).status).toBe(200);
    const changed = await fetch(`${gateway.url}/e/${USED}`);

    expect(frameAncestorsOf(changed)).toBe('https://shop.example.org');
    expect(originReads).toBe(before);
  });
});

describe('POST …/signing-url', () => {
  it('answers 404 for ids that cannot exist, before asking anyone', async () => {
    const url = (envelopeId: string, recipientId: string) =>
      `${gateway.url}/api/v1/envelopes/${envelopeId}/recipients/${recipientId}/signing-url`;
    const post = (target: string) =>
      fetch(target, { method: 'POST', headers: { Authorization: `Bearer ${API_KEY}` } });

    expect((await post(url('nope', `rcp_${'R'.repeat(24)}`))).status).toBe(404);
    expect((await post(url(`env_${'E'.repeat(24)}`, 'nope'))).status).toBe(404);
  });
});

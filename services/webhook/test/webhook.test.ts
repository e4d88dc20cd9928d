import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBus, type Bus } from '@esign/bus';
import {
  DocumentSigned,
  MAX_WEBHOOKS_PER_ACCOUNT,
  SigningDeclined,
  SigningViewed,
  WEBHOOK_PAYLOADS,
  WebhookCreate,
  WebhookDeliveries,
  WebhookDelete,
  WebhookEndpointDisabled,
  WebhookGet,
  WebhookList,
  WebhookReplay,
  WebhookRotateSecret,
  WebhookSendTest,
  WebhookUpdate,
  type TWebhookEndpointDisabledEvent,
  type TWebhookEventType,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  startWebhookReceiver,
  testNatsUrl,
  uniqueBusPrefix,
  type ReceivedWebhook,
  type TestDatabase,
  type WebhookReceiver,
  unackedMessages,
} from '@esign/testing';
import { loadWebhookConfig, startWebhookService, type WebhookService } from '../src';
import type { Lookup } from '../src/domain/ssrf';

// The service in this process on real NATS and Postgres, real HTTP receivers on 127.0.0.3 (the one
// network the configuration allows), and the service's clock in the test's hands: retries, leases and
// the failing streak follow `advance()`, so no test waits out real time.
const RETRY_SCHEDULE_MS = [5_000, 60_000, 300_000];
const DISABLE_AFTER_MS = 5 * 24 * 3600_000;

let database: TestDatabase;
let bus: Bus;
let service: WebhookService;
let env: Record<string, string>;
let clockMs = Date.now();
const now = () => new Date(clockMs);
/** Move the service's clock; the delivery loop (polling every 20 ms) finds what became due. */
const advance = (ms: number) => {
  clockMs += ms;
};
/** Host names the service's resolver knows (everything else does not resolve). */
const names = new Map<string, string>();
const lookup: Lookup = (host) => {
  const address = names.get(host);
  return address
    ? Promise.resolve([{ address, family: 4 as const }])
    : Promise.reject(new Error('ENOTFOUND'));
};
const receivers: WebhookReceiver[] = [];
const announced: TWebhookEndpointDisabledEvent[] = [];
const quiet = createLogger({ service: 'webhook-test', level: 'error' });
/** The service's log from `info` up; its errors are printed as well, as before. */
const serviceLog: { level: string; msg: string; deliveryId?: string }[] = [];

const start = () =>
  startWebhookService(loadWebhookConfig(env), {
    logger: createLogger({
      service: 'webhook',
      level: 'info',
      write: (line) => {
        const entry = JSON.parse(line) as (typeof serviceLog)[number];
        serviceLog.push(entry);
        if (entry.level === 'error') process.stdout.write(line);
      },
    }),
    now,
    lookup,
  });

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('webhook');
  database = await createTestDatabase('webhook_t');
  env = {
    NATS_URL: natsUrl,
    BUS_PREFIX: prefix,
    DATABASE_URL: database.url,
    WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32',
    WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS.join(','),
    WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS),
    WEBHOOK_POLL_INTERVAL_MS: '20',
    WEBHOOK_TIMEOUT_MS: '2000',
  };
  service = await start();
  bus = await connectBus({ url: natsUrl, name: 'webhook-test', prefix, logger: quiet, timeoutMs: 10_000 });
  bus.subscribe(WebhookEndpointDisabled, (event) => void announced.push(event));
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await bus?.drain();
  await service?.stop();
  await database?.drop();
});

const receiver = async (port?: number) => {
  const r = await startWebhookReceiver({ port });
  receivers.push(r);
  return r;
};

const endpointFor = async (url: string, eventTypes: TWebhookEventType[] = ['signing.viewed']) => {
  const accountId = randomUUID();
  const { endpoint, secret } = await bus.request(WebhookCreate, { accountId, url, eventTypes });
  return { accountId, webhookId: endpoint.id, secret };
};

const deliveriesOf = async (ep: { accountId: string; webhookId: string }) =>
  (await bus.request(WebhookDeliveries, { ...ep, limit: 20 })).deliveries;

/** The newest delivery once it has `attempts` attempts logged (the attempt is settled, not in flight). */
const settled = async (ep: { accountId: string; webhookId: string }, attempts: number) => {
  await expect.poll(async () => (await deliveriesOf(ep))[0]?.attempts).toBe(attempts);
  const [delivery] = await deliveriesOf(ep);
  if (!delivery) throw new Error('no delivery');
  return delivery;
};

const unacked = (...durables: string[]) => unackedMessages(bus, ...durables);

const viewed = (accountId: string) => ({
  eventId: randomUUID(),
  sendId: `send_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  accountId,
  senderEmail: 'sender@example.com',
  recipientEmail: 'rita@example.com',
  recipientName: 'Rita Recipient',
  fileName: 'lease.pdf',
  viewedAt: now().toISOString(),
});

/**
 * The receiver's check with `standardwebhooks`, whose timestamp tolerance (5 minutes) is judged by the
 * receiver's clock: here the service's, which the tests move.
 */
const verify = (secret: string, r: ReceivedWebhook): unknown => {
  const clock = vi.spyOn(Date, 'now').mockReturnValue(clockMs);
  try {
    return new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
  } finally {
    clock.mockRestore();
  }
};

const failWith = (r: WebhookReceiver, status: number) =>
  r.respond((_req, _n, res) => {
    res.statusCode = status;
    res.end();
  });

describe('the webhook.* subjects', () => {
  it('webhook.create answers the secret once; webhook.list and webhook.get show the endpoint without it', async () => {
    const accountId = randomUUID();
    const created = await bus.request(WebhookCreate, {
      accountId,
      url: 'http://127.0.0.3:9/hooks',
      eventTypes: ['signing.viewed', 'signing.viewed', 'document.signed'],
      description: 'orders',
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.endpoint).toMatchObject({
      id: expect.stringMatching(/^wh_[A-Za-z0-9]{24}$/) as unknown,
      url: 'http://127.0.0.3:9/hooks',
      description: 'orders',
      eventTypes: ['signing.viewed', 'document.signed'],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
    });
    const owned = { accountId, webhookId: created.endpoint.id };
    expect(await bus.request(WebhookGet, owned)).toEqual(created.endpoint);
    expect(await bus.request(WebhookList, { accountId })).toEqual({ endpoints: [created.endpoint] });
    expect(JSON.stringify(await bus.request(WebhookList, { accountId }))).not.toContain(created.secret);
    expect(await bus.request(WebhookList, { accountId: randomUUID() })).toEqual({ endpoints: [] });
  });

  it('webhook.create refuses a private address, accepts a name that does not resolve yet, and stops at the limit', async () => {
    const accountId = randomUUID();
    for (const url of ['http://127.0.0.1/hooks', 'http://10.0.0.1/hooks', 'ftp://127.0.0.3/hooks']) {
      await expect(
        bus.request(WebhookCreate, { accountId, url, eventTypes: ['signing.viewed'] }),
      ).rejects.toMatchObject({ code: 'invalid_argument', field: 'url' });
    }
    for (let i = 0; i < MAX_WEBHOOKS_PER_ACCOUNT; i++) {
      await bus.request(WebhookCreate, {
        accountId,
        url: `https://not-yet-${i}.example.test/hooks`,
        eventTypes: ['signing.viewed'],
      });
    }
    await expect(
      bus.request(WebhookCreate, {
        accountId,
        url: 'http://127.0.0.3:9/hooks',
        eventTypes: ['signing.viewed'],
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('webhook.update checks a new URL, and disabling by hand is recorded as manual until enabled', async () => {
    const ep = await endpointFor('http://127.0.0.3:9/hooks');
    await expect(
      bus.request(WebhookUpdate, { ...ep, url: 'http://169.254.169.254/latest' }),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'url' });
    const changed = await bus.request(WebhookUpdate, {
      ...ep,
      url: 'http://127.0.0.3:10/hooks',
      eventTypes: ['signing.declined'],
      description: 'changed',
      enabled: false,
    });
    expect(changed).toMatchObject({
      url: 'http://127.0.0.3:10/hooks',
      eventTypes: ['signing.declined'],
      description: 'changed',
      enabled: false,
      disabledReason: 'manual',
      disabledAt: now().toISOString(),
    });
    expect(await bus.request(WebhookUpdate, { ...ep, enabled: true })).toMatchObject({
      enabled: true,
      disabledReason: null,
      disabledAt: null,
    });
    await expect(
      bus.request(WebhookUpdate, { ...ep, accountId: randomUUID(), enabled: false }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('webhook.delete removes the endpoint, for its own account only', async () => {
    const ep = await endpointFor('http://127.0.0.3:9/hooks');
    await expect(bus.request(WebhookDelete, { ...ep, accountId: randomUUID() })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await bus.request(WebhookDelete, ep)).toEqual({ id: ep.webhookId });
    await expect(bus.request(WebhookGet, ep)).rejects.toMatchObject({ code: 'not_found' });
    await expect(bus.request(WebhookDelete, ep)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('webhook.rotate-secret keeps the previous secret signing for the overlap, by the service’s clock', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url);
    const rotated = await bus.request(WebhookRotateSecret, { ...ep, overlapHours: 24 });
    expect(rotated.secret).not.toBe(ep.secret);
    expect(rotated.previousSecretExpiresAt).toBe(new Date(clockMs + 24 * 3600_000).toISOString());
    expect((await bus.request(WebhookGet, ep)).previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);

    await bus.request(WebhookSendTest, ep);
    const [during] = await r.waitFor(1);
    if (!during) throw new Error('no webhook');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(ep.secret, during)).toEqual(JSON.parse(during.body));
    expect(verify(rotated.secret, during)).toEqual(JSON.parse(during.body));

    await settled(ep, 1);
    advance(25 * 3600_000);
    expect((await bus.request(WebhookGet, ep)).previousSecretExpiresAt).toBeNull();
    await bus.request(WebhookSendTest, ep);
    const after = (await r.waitFor(2))[1];
    if (!after) throw new Error('no webhook');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verify(ep.secret, after)).toThrow();
    expect(verify(rotated.secret, after)).toEqual(JSON.parse(after.body));
  });

  it('webhook.send-test delivers a webhook.test event signed the Standard Webhooks way, logged in webhook.deliveries', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url);
    const queued = await bus.request(WebhookSendTest, ep);
    expect(queued).toMatchObject({ eventType: 'webhook.test', kind: 'test', status: 'pending', attempts: 0 });
    const [hit] = await r.waitFor(1);
    if (!hit) throw new Error('no webhook');
    const body = verify(ep.secret, hit) as { id: string; type: string };
    expect(WEBHOOK_PAYLOADS['webhook.test'].parse(body)).toMatchObject({
      id: queued.eventId,
      data: { webhookId: ep.webhookId },
    });
    expect(hit.headers).toMatchObject({
      'webhook-id': queued.eventId,
      'webhook-timestamp': String(Math.floor(clockMs / 1000)),
      'content-type': 'application/json',
      'user-agent': 'esign-webhooks/1',
    });
    expect(await settled(ep, 1)).toMatchObject({
      id: queued.id,
      status: 'succeeded',
      nextAttemptAt: null,
      attemptLog: [{ statusCode: 204, succeeded: true, error: null, attemptedAt: now().toISOString() }],
    });
  });

  it('webhook.replay delivers an earlier event again under its webhook-id, pages the log, and refuses a disabled endpoint', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url);
    const first = await bus.request(WebhookSendTest, ep);
    await settled(ep, 1);
    const replayed = await bus.request(WebhookReplay, { ...ep, eventId: first.eventId });
    expect(replayed).toMatchObject({ eventId: first.eventId, kind: 'replay', status: 'pending' });
    const hits = await r.waitFor(2);
    expect(hits.map((h) => h.headers['webhook-id'])).toEqual([first.eventId, first.eventId]);
    await settled(ep, 1);

    const page = await bus.request(WebhookDeliveries, { ...ep, limit: 1 });
    expect(page.deliveries.map((d) => d.id)).toEqual([replayed.id]);
    expect(page.nextCursor).toBe(replayed.id);
    const next = await bus.request(WebhookDeliveries, { ...ep, limit: 1, before: page.nextCursor ?? '' });
    expect(next).toMatchObject({ deliveries: [{ id: first.id }], nextCursor: null });

    await expect(
      bus.request(WebhookReplay, { ...ep, eventId: `evt_${'0'.repeat(32)}` }),
    ).rejects.toMatchObject({ code: 'not_found', field: 'eventId' });
    await expect(
      bus.request(WebhookReplay, { ...ep, accountId: randomUUID(), eventId: first.eventId }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await bus.request(WebhookUpdate, { ...ep, enabled: false });
    await expect(bus.request(WebhookReplay, { ...ep, eventId: first.eventId })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(bus.request(WebhookSendTest, ep)).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('delivery', () => {
  it('delivers a consumed document.signed event once however often it comes, with a fresh download link', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url, ['document.signed']);
    const event = {
      eventId: randomUUID(),
      documentId: randomUUID(),
      accountId: ep.accountId,
      auditId: 'ESG-AAAA-BBBB-CCCC',
      fileHash: `sha256:${'a'.repeat(64)}`,
      signedAt: now().toISOString(),
      fileName: 'lease.pdf',
      signerName: 'Ada',
      signerEmail: 'ada@example.com',
    };
    await bus.publish(DocumentSigned, event, { msgId: event.eventId });
    // The same event again past JetStream's de-duplication (another message id), as a redelivery.
    await bus.publish(DocumentSigned, event, { msgId: randomUUID() });
    await expect.poll(() => unacked('webhook-document-signed')).toBe(0);
    expect(await settled(ep, 1)).toMatchObject({ status: 'succeeded' });
    expect(await deliveriesOf(ep)).toHaveLength(1);
    expect(r.received).toHaveLength(1);
    const [hit] = r.received;
    if (!hit) throw new Error('no webhook');
    const body = WEBHOOK_PAYLOADS['document.signed'].parse(verify(ep.secret, hit));
    expect(body.id).toBe(`evt_${event.eventId.replace(/-/g, '')}`);
    expect(body.data).toMatchObject({
      auditId: event.auditId,
      signer: { name: 'Ada', email: 'ada@example.com' },
    });
    expect(body.data.download?.url).toContain(`signed/${ep.accountId}/ESG-AAAA-BBBB-CCCC.pdf`);
    expect(body.data.download?.expiresAt).toBe(new Date(clockMs + 3600_000).toISOString());
  });

  it('retries a receiver answering 500 on the backoff schedule of the service’s clock, with the same webhook-id', async () => {
    const r = await receiver();
    r.respond((_req, n, res) => {
      res.statusCode = n <= 2 ? 500 : 200;
      res.end(n <= 2 ? 'down' : 'ok');
    });
    const ep = await endpointFor(r.url);
    const event = viewed(ep.accountId);
    await bus.publish(SigningViewed, event, { msgId: event.eventId });
    const firstAt = clockMs;
    const first = await settled(ep, 1);
    expect(first.status).toBe('pending');
    // Due again after 5 s ± 20 %: not before the clock gets there.
    const due = Date.parse(first.nextAttemptAt ?? '');
    expect(due - firstAt).toBeGreaterThanOrEqual(4_000);
    expect(due - firstAt).toBeLessThanOrEqual(6_000);
    expect((await bus.request(WebhookGet, ep)).failingSince).toBe(new Date(firstAt).toISOString());
    expect(r.received).toHaveLength(1);

    advance(6_000);
    const second = await settled(ep, 2);
    expect(Date.parse(second.nextAttemptAt ?? '') - clockMs).toBeGreaterThanOrEqual(48_000);
    advance(72_000);
    expect(await settled(ep, 3)).toMatchObject({ status: 'succeeded' });
    expect(second.attemptLog.map((a) => [a.statusCode, a.responseExcerpt])).toEqual([
      [500, 'down'],
      [500, 'down'],
    ]);
    expect(new Set(r.received.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect((await bus.request(WebhookGet, ep)).failingSince).toBeNull();
  });

  it('fails a delivery once its schedule is spent, and disables an endpoint failing past the limit at its next failure', async () => {
    const r = await receiver();
    failWith(r, 500);
    const ep = await endpointFor(r.url, ['signing.declined']);
    const since = now().toISOString();
    const first = { ...viewed(ep.accountId), declinedAt: since, reason: 'No' };
    await bus.publish(SigningDeclined, first, { msgId: first.eventId });
    await settled(ep, 1);
    for (const [i, delay] of RETRY_SCHEDULE_MS.entries()) {
      advance(delay * 1.2 + 1);
      await settled(ep, i + 2);
    }
    expect((await deliveriesOf(ep))[0]).toMatchObject({ status: 'failed', attempts: 4, nextAttemptAt: null });
    expect(await bus.request(WebhookGet, ep)).toMatchObject({ enabled: true, failingSince: since });

    advance(DISABLE_AFTER_MS);
    const second = { ...viewed(ep.accountId), declinedAt: now().toISOString(), reason: 'Still no' };
    await bus.publish(SigningDeclined, second, { msgId: second.eventId });
    await expect
      .poll(() => announced.find((a) => a.webhookId === ep.webhookId))
      .toMatchObject({
        accountId: ep.accountId,
        url: r.url,
        reason: 'failing',
        failingSince: since,
        disabledAt: now().toISOString(),
      });
    expect(await bus.request(WebhookGet, ep)).toMatchObject({ enabled: false, disabledReason: 'failing' });
    expect((await deliveriesOf(ep)).map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 1],
      ['failed', 4],
    ]);
  });

  it('disables an endpoint that answers 410 at once, announces it, and attempts nothing more', async () => {
    const r = await receiver();
    failWith(r, 410);
    const ep = await endpointFor(r.url);
    const event = viewed(ep.accountId);
    await bus.publish(SigningViewed, event, { msgId: event.eventId });
    expect(await settled(ep, 1)).toMatchObject({ status: 'failed', attemptLog: [{ statusCode: 410 }] });
    await expect
      .poll(() => announced.find((a) => a.webhookId === ep.webhookId))
      .toMatchObject({ reason: 'gone', failingSince: now().toISOString() });
    expect(await bus.request(WebhookGet, ep)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    advance(RETRY_SCHEDULE_MS[0] ?? 0);
    expect(r.received).toHaveLength(1);
  });

  it('drops the outcome of an attempt whose endpoint its owner deleted meanwhile, without an error', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url);
    // The owner deletes the endpoint (and with it its deliveries) while the receiver is answering.
    r.respond((_request, _n, res) => {
      void bus.request(WebhookDelete, ep).then(() => {
        res.statusCode = 204;
        res.end();
      });
    });
    const event = viewed(ep.accountId);
    await bus.publish(SigningViewed, event, { msgId: event.eventId });
    const [delivered] = await r.waitFor(1);
    const dropped = await vi.waitFor(() => {
      const line = serviceLog.find((entry) => entry.msg.includes('deleted during the attempt'));
      if (!line?.deliveryId) throw new Error('the attempt has not been settled yet');
      return line;
    });
    expect(dropped.level).toBe('info');
    // Before, recording the attempt of a delivery gone with its endpoint failed (foreign key) and
    // was logged as an unexpected error with its stack.
    expect(
      serviceLog.filter((line) => line.deliveryId === dropped.deliveryId && line.level !== 'info'),
    ).toEqual([]);
    await expect(bus.request(WebhookGet, ep)).rejects.toMatchObject({ code: 'not_found' });
    advance(RETRY_SCHEDULE_MS[0] ?? 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toEqual([delivered]);
  });

  it('refuses an attempt to a name that now resolves to a private address, and sends nothing there', async () => {
    const r = await receiver();
    const host = `hooks-${randomUUID().slice(0, 8)}.example.test`;
    names.set(host, '127.0.0.3');
    const ep = await endpointFor(`http://${host}:${new URL(r.url).port}/hooks`);
    await bus.request(WebhookSendTest, ep);
    await r.waitFor(1);
    await settled(ep, 1);

    names.set(host, '10.0.0.1');
    await bus.request(WebhookSendTest, ep);
    const refused = await settled(ep, 1);
    expect(refused.attemptLog).toEqual([
      expect.objectContaining({
        statusCode: null,
        succeeded: false,
        error: expect.stringMatching(/^refused: url: .* resolves to 10\.0\.0\.1/) as unknown,
      }),
    ]);
    expect(r.received).toHaveLength(1);
  });

  it('delivers an event published while the service was stopped once it is back, and once', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url);
    await service.stop();
    const event = viewed(ep.accountId);
    await bus.publish(SigningViewed, event, { msgId: event.eventId });
    expect(await unacked('webhook-signing-viewed')).toBeGreaterThan(0);
    service = await start();
    const [hit] = await r.waitFor(1);
    expect(hit?.headers['webhook-id']).toBe(`evt_${event.eventId.replace(/-/g, '')}`);
    await expect.poll(() => unacked('webhook-signing-viewed')).toBe(0);
    expect(await settled(ep, 1)).toMatchObject({ status: 'succeeded' });
    expect(await deliveriesOf(ep)).toHaveLength(1);
  });
});

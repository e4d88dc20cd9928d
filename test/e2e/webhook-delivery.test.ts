import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus } from '@esign/bus';
import {
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningViewed,
  WEBHOOK_PAYLOADS,
  WebhookCreate,
  WebhookDeliveries,
  WebhookEndpointDisabled,
  WebhookGet,
  WebhookRotateSecret,
  type TWebhookEventType,
} from '@esign/contracts';
import { startTestStack, type TestStack } from '../support/test-stack';
import { createLogger } from '@esign/telemetry';
import {
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
  unackedMessages,
} from '@esign/testing';

// The webhook service as its own process (as deployed) on real NATS and Postgres, in a stack of its
// own (so that it can be restarted and run with a fast retry schedule); signing events are published
// on the bus as document-store's outbox would (the send API is built elsewhere), and real HTTP
// receivers in this process get them.
let test: TestStack;
let bus: Bus;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  test = await startTestStack({
    label: 'webhook_delivery',
    services: ['webhook'],
    env: { LOG_LEVEL: 'warn' },
    serviceEnv: {
      webhook: {
        WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32',
        WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200,200,200,200,200,200',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_SWEEP_INTERVAL_MS: '300',
      },
    },
  });
  bus = await connectBus({
    url: test.natsUrl,
    name: 'webhook-test',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'webhook-test', level: 'error' }),
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await bus?.drain();
  await test?.stop();
});

const receiver = async (port?: number) => {
  const r = await startWebhookReceiver({ port });
  receivers.push(r);
  return r;
};

const endpointFor = async (url: string, eventTypes: TWebhookEventType[], accountId = randomUUID()) => {
  const { endpoint, secret } = await bus.request(WebhookCreate, { accountId, url, eventTypes });
  return { accountId, id: endpoint.id, secret };
};

const base = (accountId: string) => ({
  eventId: randomUUID(),
  sendId: `send_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  accountId,
  senderEmail: 'sender@example.com',
  recipientEmail: 'rita@example.com',
  recipientName: 'Rita Recipient',
  fileName: 'lease.pdf',
});

const unacked = (...durables: string[]) => unackedMessages(bus, ...durables);

/** The endpoint's deliveries as `[status, attempts]`, newest first. */
const deliveryStates = async (ep: { accountId: string; id: string }) =>
  (
    await bus.request(WebhookDeliveries, { accountId: ep.accountId, webhookId: ep.id, limit: 10 })
  ).deliveries.map((d) => [d.status, d.attempts]);

const verify = (secret: string, r: ReceivedWebhook) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

describe('webhook delivery of signing events', () => {
  it('delivers viewed, completed, declined and expired once each, signed and in their documented shape', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url, [
      'signing.viewed',
      'signing.completed',
      'signing.declined',
      'signing.expired',
    ]);
    const now = new Date().toISOString();
    const viewed = { ...base(ep.accountId), viewedAt: now };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    // The same event again under another message id (an outbox row sent twice after the duplicate
    // window): the event id makes it one delivery.
    await bus.publish(SigningViewed, viewed, { msgId: randomUUID() });
    const completed = {
      ...base(ep.accountId),
      signedAt: now,
      fileHash: `sha256:${'a'.repeat(64)}`,
      objectKey: `signed/${ep.accountId}/ESG-AAAA-BBBB-CCCC.pdf`,
      size: 1234,
    };
    await bus.publish(SigningCompleted, completed, { msgId: completed.eventId });
    const declined = { ...base(ep.accountId), declinedAt: now, reason: 'Wrong rent' };
    await bus.publish(SigningDeclined, declined, { msgId: declined.eventId });
    const expired = { ...base(ep.accountId), expiredAt: now };
    await bus.publish(SigningExpired, expired, { msgId: expired.eventId });

    const got = await r.waitFor(4);
    // Every event recorded (the duplicate too) and its one delivery settled: nothing more can come.
    await expect
      .poll(() =>
        unacked(
          'webhook-signing-viewed',
          'webhook-signing-completed',
          'webhook-signing-declined',
          'webhook-signing-expired',
        ),
      )
      .toBe(0);
    await expect.poll(() => deliveryStates(ep)).toEqual(Array.from({ length: 4 }, () => ['succeeded', 1]));
    expect(r.received).toHaveLength(4);
    const byType = new Map<string, { id: string; data: Record<string, unknown> }>();
    for (const hit of got) {
      expect(verify(ep.secret, hit)).toEqual(JSON.parse(hit.body));
      const body = JSON.parse(hit.body) as {
        id: string;
        type: keyof typeof WEBHOOK_PAYLOADS;
        data: Record<string, unknown>;
      };
      expect(WEBHOOK_PAYLOADS[body.type].safeParse(body).success).toBe(true);
      expect(hit.headers['webhook-id']).toBe(body.id);
      // Only public facts: never the sender's address, never a link.
      expect(hit.body).not.toContain('sender@example.com');
      expect(hit.body).not.toContain('/s/');
      byType.set(body.type, body);
    }
    expect(byType.get('signing.viewed')?.id).toBe(`evt_${viewed.eventId.replace(/-/g, '')}`);
    expect(byType.get('signing.declined')?.data.reason).toBe('Wrong rent');
    const download = byType.get('signing.completed')?.data.download as { url: string; expiresAt: string };
    expect(download.url).toContain(`signed/${ep.accountId}/ESG-AAAA-BBBB-CCCC.pdf`);
    expect(download.url).toContain('X-Amz-Signature=');
    expect(Date.parse(download.expiresAt) - Date.now()).toBeLessThanOrEqual(3600_000);
  });

  it('sends only the event types an endpoint subscribes to, and only to its own account', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url, ['signing.declined']);
    const other = await receiver();
    const otherEp = await endpointFor(other.url, ['signing.declined']);
    const viewed = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    const declined = { ...base(ep.accountId), declinedAt: new Date().toISOString(), reason: 'No' };
    await bus.publish(SigningDeclined, declined, { msgId: declined.eventId });
    const [hit] = await r.waitFor(1);
    expect(JSON.parse(hit?.body ?? '{}')).toMatchObject({ type: 'signing.declined' });
    // Both events recorded, and the one delivery settled: nothing else was queued for anyone.
    await expect.poll(() => unacked('webhook-signing-viewed', 'webhook-signing-declined')).toBe(0);
    await expect.poll(() => deliveryStates(ep)).toEqual([['succeeded', 1]]);
    expect(await deliveryStates(otherEp)).toEqual([]);
    expect(r.received).toHaveLength(1);
    expect(other.received).toHaveLength(0);
  });

  it('retries a failing receiver with the same webhook-id and logs every attempt', async () => {
    const r = await receiver();
    r.respond((_req, n, res) => {
      res.statusCode = n <= 2 ? 503 : 200;
      res.end(n <= 2 ? 'busy' : 'ok');
    });
    const ep = await endpointFor(r.url, ['signing.expired']);
    const expired = { ...base(ep.accountId), expiredAt: new Date().toISOString() };
    await bus.publish(SigningExpired, expired, { msgId: expired.eventId });
    const hits = await r.waitFor(3);
    const ids = new Set(hits.map((h) => h.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const h of hits) expect(verify(ep.secret, h)).toEqual(JSON.parse(h.body));
    await expect
      .poll(async () => {
        const { deliveries } = await bus.request(WebhookDeliveries, {
          accountId: ep.accountId,
          webhookId: ep.id,
          limit: 10,
        });
        return deliveries[0]?.status;
      })
      .toBe('succeeded');
    const { deliveries } = await bus.request(WebhookDeliveries, {
      accountId: ep.accountId,
      webhookId: ep.id,
      limit: 10,
    });
    expect(deliveries[0]?.attemptLog.map((a) => [a.statusCode, a.succeeded, a.responseExcerpt])).toEqual([
      [503, false, 'busy'],
      [503, false, 'busy'],
      [200, true, 'ok'],
    ]);
    const endpoint = await bus.request(WebhookGet, { accountId: ep.accountId, webhookId: ep.id });
    expect(endpoint.failingSince).toBeNull();
  });

  it('delivers an event published while the receiver is down and the webhook process restarts', async () => {
    const first = await receiver();
    const port = Number(new URL(first.url).port);
    const ep = await endpointFor(first.url, ['signing.viewed']);
    await first.close();
    await test.stack.stopService('webhook');
    const viewed = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    await test.stack.startService('webhook');
    // Attempts fail (connection refused) until the receiver is back.
    await expect
      .poll(
        async () =>
          (await bus.request(WebhookDeliveries, { accountId: ep.accountId, webhookId: ep.id, limit: 5 }))
            .deliveries[0]?.attempts ?? 0,
        { timeout: 10_000 },
      )
      .toBeGreaterThanOrEqual(1);
    const back = await receiver(port);
    const [hit] = await back.waitFor(1);
    expect(hit?.headers['webhook-id']).toBe(`evt_${viewed.eventId.replace(/-/g, '')}`);
    expect(verify(ep.secret, hit as ReceivedWebhook)).toEqual(JSON.parse((hit as ReceivedWebhook).body));
  });

  it('signs with both secrets during a rotation overlap, and with the new one alone after it', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url, ['signing.viewed']);
    const rotated = await bus.request(WebhookRotateSecret, {
      accountId: ep.accountId,
      webhookId: ep.id,
      overlapHours: 24,
    });
    expect(rotated.secret).not.toBe(ep.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt ?? '') - Date.now()).toBeGreaterThan(23 * 3600_000);
    const one = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, one, { msgId: one.eventId });
    const [during] = await r.waitFor(1);
    expect(String(during?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(ep.secret, during as ReceivedWebhook)).toEqual(
      JSON.parse((during as ReceivedWebhook).body),
    );
    expect(verify(rotated.secret, during as ReceivedWebhook)).toEqual(
      JSON.parse((during as ReceivedWebhook).body),
    );

    const again = await bus.request(WebhookRotateSecret, {
      accountId: ep.accountId,
      webhookId: ep.id,
      overlapHours: 0,
    });
    const two = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, two, { msgId: two.eventId });
    const after = (await r.waitFor(2))[1] as ReceivedWebhook;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(again.secret, after)).toEqual(JSON.parse(after.body));
    expect(() => verify(rotated.secret, after)).toThrow();
  });

  it('disables an endpoint that answers 410 and announces it', async () => {
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.statusCode = 410;
      res.end();
    });
    const ep = await endpointFor(r.url, ['signing.viewed']);
    const announced = new Promise<unknown>((resolve) => bus.subscribe(WebhookEndpointDisabled, resolve));
    const viewed = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    await r.waitFor(1);
    expect(await announced).toMatchObject({ webhookId: ep.id, reason: 'gone', accountId: ep.accountId });
    const endpoint = await bus.request(WebhookGet, { accountId: ep.accountId, webhookId: ep.id });
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'gone' });
    // Settled for good (a 410 is not retried), so no further attempt can come.
    await expect.poll(() => deliveryStates(ep)).toEqual([['failed', 1]]);
    expect(r.received).toHaveLength(1);
  });

  it('disables an endpoint that keeps failing past the limit, at its next failure, and announces it', async () => {
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.statusCode = 500;
      res.end();
    });
    const ep = await endpointFor(r.url, ['signing.declined']);
    const announced = new Promise<unknown>((resolve) =>
      bus.subscribe(WebhookEndpointDisabled, (event) => {
        if (event.webhookId === ep.id) resolve(event);
      }),
    );
    const first = { ...base(ep.accountId), declinedAt: new Date().toISOString(), reason: 'No' };
    await bus.publish(SigningDeclined, first, { msgId: first.eventId });
    await r.waitFor(1);
    // Its nine attempts are spent well before the limit: still enabled, failing since the first.
    await expect.poll(() => deliveryStates(ep), { timeout: 10_000 }).toEqual([['failed', 9]]);
    const failing = await bus.request(WebhookGet, { accountId: ep.accountId, webhookId: ep.id });
    expect(failing).toMatchObject({ enabled: true, disabledReason: null });
    expect(failing.failingSince).not.toBeNull();
    // Five days of failures (WEBHOOK_DISABLE_AFTER_MS) pass in the data: the streak started that long ago.
    const db = new pg.Client({ connectionString: test.database.url });
    await db.connect();
    const { rows } = await db
      .query<{ since: Date }>(
        `update webhook.endpoints set failing_since = failing_since - interval '5 days'
          where id = $1 returning failing_since as since`,
        [ep.id],
      )
      .finally(() => db.end());
    const since = rows[0]?.since.toISOString();
    const second = { ...base(ep.accountId), declinedAt: new Date().toISOString(), reason: 'Still no' };
    await bus.publish(SigningDeclined, second, { msgId: second.eventId });
    expect(await announced).toMatchObject({ reason: 'failing', failingSince: since });
    expect(await bus.request(WebhookGet, { accountId: ep.accountId, webhookId: ep.id })).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    const { deliveries } = await bus.request(WebhookDeliveries, {
      accountId: ep.accountId,
      webhookId: ep.id,
      limit: 5,
    });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([
      ['pending', 1],
      ['failed', 9],
    ]);
  });

  it('removes finished deliveries and their events past the retention, and keeps pending ones', async () => {
    const r = await receiver();
    const ep = await endpointFor(r.url, ['signing.viewed']);
    const viewed = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    await r.waitFor(1);
    const eventId = `evt_${viewed.eventId.replace(/-/g, '')}`;
    await expect
      .poll(async () => {
        const { deliveries } = await bus.request(WebhookDeliveries, {
          accountId: ep.accountId,
          webhookId: ep.id,
          limit: 5,
        });
        return deliveries[0]?.status;
      })
      .toBe('succeeded');
    const db = new pg.Client({ connectionString: test.database.url });
    await db.connect();
    try {
      const count = async () =>
        (
          await db.query<{ n: number }>(
            `select (select count(*) from webhook.deliveries where event_id = $1)::int
                  + (select count(*) from webhook.events where id = $1)::int as n`,
            [eventId],
          )
        ).rows[0]?.n;
      expect(await count()).toBe(2);
      // 31 days old: the sweep (every 300 ms here) removes both; a pending delivery that old stays,
      // with its event (the endpoint is disabled, so the loop leaves it pending).
      const pendingId = `evt_${randomUUID().replace(/-/g, '')}`;
      await db.query(`update webhook.endpoints set enabled = false where id = $1`, [ep.id]);
      await db.query(
        `insert into webhook.events (id, account_id, type, occurred_at, data, created_at)
         values ($1, $2, 'signing.viewed', now(), '{}', now() - interval '31 days')`,
        [pendingId, ep.accountId],
      );
      await db.query(
        `insert into webhook.deliveries (event_id, endpoint_id, kind, next_attempt_at, created_at)
         values ($1, $2, 'replay', now(), now() - interval '31 days')`,
        [pendingId, ep.id],
      );
      await db.query(
        `update webhook.deliveries set created_at = now() - interval '31 days' where event_id = $1`,
        [eventId],
      );
      await db.query(`update webhook.events set created_at = now() - interval '31 days' where id = $1`, [
        eventId,
      ]);
      await expect.poll(count, { timeout: 5000 }).toBe(0);
      const left = await db.query(
        `select d.status from webhook.deliveries d join webhook.events e on e.id = d.event_id where e.id = $1`,
        [pendingId],
      );
      expect(left.rows).toEqual([{ status: 'pending' }]);
    } finally {
      await db.end();
    }
  });

  it('does not follow a redirect to the metadata address: a 3xx is a failed attempt', async () => {
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.statusCode = 302;
      res.setHeader('Location', 'http://169.254.169.254/latest/meta-data/');
      res.end();
    });
    const ep = await endpointFor(r.url, ['signing.viewed']);
    const viewed = { ...base(ep.accountId), viewedAt: new Date().toISOString() };
    await bus.publish(SigningViewed, viewed, { msgId: viewed.eventId });
    await r.waitFor(2);
    const { deliveries } = await bus.request(WebhookDeliveries, {
      accountId: ep.accountId,
      webhookId: ep.id,
      limit: 5,
    });
    expect(deliveries[0]?.attemptLog[0]).toMatchObject({
      statusCode: 302,
      succeeded: false,
      error: 'redirect (302) not followed',
    });
  });
});

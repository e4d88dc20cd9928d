import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBus, type Bus } from '@esign/bus';
import {
  EnvelopeCanceled,
  EnvelopeCompleted,
  EnvelopeDeclined,
  EnvelopeExpired,
  EnvelopeRecipientApproved,
  EnvelopeRecipientSigned,
  EnvelopeRecipientTurn,
  EnvelopeRecipientViewed,
  EnvelopeSent,
  WEBHOOK_PAYLOADS,
  WebhookCreate,
  WebhookDeliveries,
  WebhookReplay,
  type TEventRecipient,
  type TWebhookEventType,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  startWebhookReceiver,
  testNatsUrl,
  uniqueBusPrefix,
  unackedMessages,
  type ReceivedWebhook,
  type TestDatabase,
  type WebhookReceiver,
} from '@esign/testing';
import { loadWebhookConfig, startWebhookService, type WebhookService } from '../src';

// Envelope events (as document-store's outbox publishes them into the EVENTS stream) become webhook
// events through the same machinery as the signing events: the service in this process on real NATS
// and Postgres, real HTTP receivers on 127.0.0.3, the service's clock in the test's hands.

const ENVELOPE_TYPES = [
  'envelope.sent',
  'recipient.notified',
  'recipient.viewed',
  'recipient.signed',
  'recipient.approved',
  'recipient.declined',
  'envelope.declined',
  'envelope.completed',
  'envelope.canceled',
  'envelope.expired',
] as const satisfies readonly TWebhookEventType[];

const DURABLES = [
  'webhook-envelope-sent',
  'webhook-envelope-recipient-turn',
  'webhook-envelope-recipient-viewed',
  'webhook-envelope-recipient-signed',
  'webhook-envelope-recipient-approved',
  'webhook-envelope-declined',
  'webhook-envelope-completed',
  'webhook-envelope-canceled',
  'webhook-envelope-expired',
];

let database: TestDatabase;
let bus: Bus;
let service: WebhookService;
let clockMs = Date.now();
const now = () => new Date(clockMs);
const receivers: WebhookReceiver[] = [];
const quiet = createLogger({ service: 'webhook-test', level: 'error' });

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('webhook-env');
  database = await createTestDatabase('webhook_env_t');
  service = await startWebhookService(
    loadWebhookConfig({
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32',
      WEBHOOK_RETRY_SCHEDULE_MS: '5000,60000',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_TIMEOUT_MS: '2000',
    }),
    { logger: createLogger({ service: 'webhook', level: 'error' }), now },
  );
  bus = await connectBus({
    url: natsUrl,
    name: 'webhook-env-test',
    prefix,
    logger: quiet,
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await bus?.drain();
  await service?.stop();
  await database?.drop();
});

const receiver = async () => {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
};

const endpointFor = async (accountId: string, url: string, eventTypes: TWebhookEventType[]) => {
  const { endpoint, secret } = await bus.request(WebhookCreate, { accountId, url, eventTypes });
  return { accountId, webhookId: endpoint.id, secret };
};

const deliveriesOf = async (ep: { accountId: string; webhookId: string }) =>
  (await bus.request(WebhookDeliveries, { ...ep, limit: 50 })).deliveries;

/** The receiver's check with `standardwebhooks`, its 5-minute tolerance judged by the service's clock. */
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

const evtId = (uuid: string) => `evt_${uuid.replace(/-/g, '')}`;
const rid = () => `rcp_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

const ann: TEventRecipient = {
  recipientId: rid(),
  name: 'Ann Lee',
  email: 'ann@example.com',
  role: 'signer',
  order: 1,
};
const bob: TEventRecipient = {
  recipientId: rid(),
  name: 'Bob Ray',
  email: 'bob@example.com',
  role: 'signer',
  order: 1,
};
const lou: TEventRecipient = {
  recipientId: rid(),
  name: 'Landlord',
  email: 'lou@example.com',
  role: 'approver',
  order: 2,
};
const cat: TEventRecipient = {
  recipientId: rid(),
  name: 'Accountant',
  email: 'cat@example.com',
  role: 'cc',
  order: 3,
};
const everyone = [ann, bob, lou, cat];

/** What every envelope event carries, as document-store's outbox writes it. */
const base = (accountId: string, envelopeId: string) => ({
  eventId: randomUUID(),
  envelopeId,
  auditId: 'ESG-ENVL-OPE1-TEST',
  accountId,
  senderEmail: 'sender@example.com',
  subject: 'Please sign the lease',
  message: null,
  fileName: 'lease.pdf',
  occurredAt: now().toISOString(),
});

const acted = (accountId: string, envelopeId: string, recipient: TEventRecipient) => ({
  ...base(accountId, envelopeId),
  recipient,
  ipAddress: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (test)',
});

/** Every kind of envelope event once, with each publish as the outbox does (message id = event id). */
const everyEvent = (accountId: string) => {
  const envelopeId = `env_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const expiresAt = new Date(clockMs + 30 * 86_400_000).toISOString();
  const sent = { ...base(accountId, envelopeId), recipients: everyone, expiresAt };
  const turn = { ...base(accountId, envelopeId), recipient: ann, reason: 'turn' as const, expiresAt };
  const resend = { ...base(accountId, envelopeId), recipient: ann, reason: 'resend' as const, expiresAt };
  const reminder = { ...base(accountId, envelopeId), recipient: bob, reason: 'reminder' as const, expiresAt };
  const viewed = acted(accountId, envelopeId, ann);
  const signed = acted(accountId, envelopeId, bob);
  const approved = acted(accountId, envelopeId, lou);
  const completed = {
    ...base(accountId, envelopeId),
    recipients: everyone,
    fileHash: `sha256:${'c'.repeat(64)}`,
    objectKey: `signed/${accountId}/ESG-ENVL-OPE1-TEST.pdf`,
    size: 123_456,
    completedAt: now().toISOString(),
  };
  const declined = {
    ...base(accountId, envelopeId),
    decliner: lou,
    reason: 'The rent is wrong',
    notify: [ann, bob],
  };
  const canceled = { ...base(accountId, envelopeId), notify: [ann] };
  const expired = { ...base(accountId, envelopeId), notify: [] };
  const publishAll = async (msgId: (eventId: string) => string) => {
    await bus.publish(EnvelopeSent, sent, { msgId: msgId(sent.eventId) });
    for (const e of [turn, resend, reminder]) {
      await bus.publish(EnvelopeRecipientTurn, e, { msgId: msgId(e.eventId) });
    }
    await bus.publish(EnvelopeRecipientViewed, viewed, { msgId: msgId(viewed.eventId) });
    await bus.publish(EnvelopeRecipientSigned, signed, { msgId: msgId(signed.eventId) });
    await bus.publish(EnvelopeRecipientApproved, approved, { msgId: msgId(approved.eventId) });
    await bus.publish(EnvelopeCompleted, completed, { msgId: msgId(completed.eventId) });
    await bus.publish(EnvelopeDeclined, declined, { msgId: msgId(declined.eventId) });
    await bus.publish(EnvelopeCanceled, canceled, { msgId: msgId(canceled.eventId) });
    await bus.publish(EnvelopeExpired, expired, { msgId: msgId(expired.eventId) });
  };
  return {
    envelopeId,
    expiresAt,
    events: { sent, turn, viewed, signed, approved, completed, declined, canceled, expired },
    publishAll,
  };
};

const publicRecipient = (r: TEventRecipient) => ({
  recipientId: r.recipientId,
  name: r.name,
  email: r.email,
  role: r.role,
  order: r.order,
});

describe('envelope webhook events', () => {
  it('delivers each envelope event once, signed, typed and with its data; a redelivered event posts nothing twice; a signing.completed endpoint gets none', async () => {
    const accountId = randomUUID();
    const r = await receiver();
    const signingOnly = await receiver();
    const ep = await endpointFor(accountId, r.url, [...ENVELOPE_TYPES]);
    const other = await endpointFor(accountId, signingOnly.url, ['signing.completed']);
    const flow = everyEvent(accountId);
    const { sent, turn, viewed, signed, approved, completed, declined, canceled, expired } = flow.events;

    await flow.publishAll((eventId) => eventId);
    await expect.poll(() => unackedMessages(bus, ...DURABLES)).toBe(0);
    await r.waitFor(ENVELOPE_TYPES.length);
    await expect
      .poll(async () => (await deliveriesOf(ep)).filter((d) => d.status === 'succeeded').length)
      .toBe(ENVELOPE_TYPES.length);

    // The same events again past JetStream's de-duplication (other message ids), as redeliveries.
    await flow.publishAll(() => randomUUID());
    await expect.poll(() => unackedMessages(bus, ...DURABLES)).toBe(0);
    // Give the loop (polling every 20 ms) time to send anything that was queued.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(r.received).toHaveLength(ENVELOPE_TYPES.length);
    const deliveries = await deliveriesOf(ep);
    expect(deliveries).toHaveLength(ENVELOPE_TYPES.length);
    expect(deliveries.every((d) => d.kind === 'event' && d.attempts === 1)).toBe(true);
    expect(signingOnly.received).toHaveLength(0);
    expect(await deliveriesOf(other)).toEqual([]);

    const byType = new Map<string, { id: string; data: Record<string, unknown>; timestamp: string }>();
    for (const hit of r.received) {
      const body = verify(ep.secret, hit) as { id: string; type: (typeof ENVELOPE_TYPES)[number] };
      expect(WEBHOOK_PAYLOADS[body.type].safeParse(body).success, body.type).toBe(true);
      expect(hit.headers['webhook-id']).toBe(body.id);
      expect(byType.has(body.type), `${body.type} twice`).toBe(false);
      byType.set(body.type, WEBHOOK_PAYLOADS[body.type].parse(body));
    }
    expect([...byType.keys()].sort()).toEqual([...ENVELOPE_TYPES].sort());
    // Never the sender's email nor the message; no link or token (events carry none).
    for (const hit of r.received) {
      expect(hit.body).not.toContain('sender@example.com');
      expect(hit.body).not.toMatch(/notify/);
    }

    const ids = { envelopeId: flow.envelopeId, auditId: 'ESG-ENVL-OPE1-TEST' };
    expect(byType.get('envelope.sent')).toMatchObject({
      id: evtId(sent.eventId),
      timestamp: sent.occurredAt,
      data: {
        ...ids,
        fileName: 'lease.pdf',
        subject: 'Please sign the lease',
        recipients: everyone.map(publicRecipient),
        expiresAt: flow.expiresAt,
      },
    });
    expect(byType.get('recipient.notified')).toEqual({
      id: evtId(turn.eventId),
      type: 'recipient.notified',
      timestamp: turn.occurredAt,
      data: { ...ids, recipient: publicRecipient(ann) },
    });
    for (const [type, event, who] of [
      ['recipient.viewed', viewed, ann],
      ['recipient.signed', signed, bob],
      ['recipient.approved', approved, lou],
    ] as const) {
      expect(byType.get(type), type).toEqual({
        id: evtId(event.eventId),
        type,
        timestamp: event.occurredAt,
        data: {
          ...ids,
          recipient: publicRecipient(who),
          at: event.occurredAt,
          ipAddress: '203.0.113.7',
          userAgent: 'Mozilla/5.0 (test)',
        },
      });
    }
    expect(byType.get('envelope.declined')).toEqual({
      id: evtId(declined.eventId),
      type: 'envelope.declined',
      timestamp: declined.occurredAt,
      data: { ...ids, reason: 'The rent is wrong', decliner: publicRecipient(lou), at: declined.occurredAt },
    });
    const recipientDeclined = byType.get('recipient.declined');
    expect(recipientDeclined).toMatchObject({
      type: 'recipient.declined',
      timestamp: declined.occurredAt,
      data: { ...ids, recipient: publicRecipient(lou), reason: 'The rent is wrong', at: declined.occurredAt },
    });
    // Its own id, stable per source event (the redelivery above made no second one), not the envelope's.
    expect(recipientDeclined?.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(recipientDeclined?.id).not.toBe(evtId(declined.eventId));
    const done = byType.get('envelope.completed');
    expect(done).toMatchObject({
      id: evtId(completed.eventId),
      timestamp: completed.completedAt,
      data: {
        ...ids,
        fileName: 'lease.pdf',
        fileHash: completed.fileHash,
        completedAt: completed.completedAt,
        size: 123_456,
        recipients: everyone.map(publicRecipient),
        download: { expiresAt: new Date(clockMs + 3600_000).toISOString() },
      },
    });
    const download = (done?.data.download ?? {}) as { url?: string };
    expect(download.url).toContain(`signed/${accountId}/ESG-ENVL-OPE1-TEST.pdf`);
    expect(download.url).toContain('X-Amz-Signature=');
    for (const [type, event] of [
      ['envelope.canceled', canceled],
      ['envelope.expired', expired],
    ] as const) {
      expect(byType.get(type), type).toEqual({
        id: evtId(event.eventId),
        type,
        timestamp: event.occurredAt,
        data: { ...ids, at: event.occurredAt },
      });
    }
  });

  it('retries an envelope event on the schedule under the same webhook-id, and replays it', async () => {
    const accountId = randomUUID();
    const r = await receiver();
    r.respond((_req, n, res) => {
      res.statusCode = n === 1 ? 503 : 200;
      res.end(n === 1 ? 'busy' : 'ok');
    });
    const ep = await endpointFor(accountId, r.url, ['envelope.completed']);
    const flow = everyEvent(accountId);
    const { completed } = flow.events;
    await bus.publish(EnvelopeCompleted, completed, { msgId: completed.eventId });
    await expect.poll(async () => (await deliveriesOf(ep))[0]?.attempts).toBe(1);
    const [first] = await deliveriesOf(ep);
    expect(first).toMatchObject({ status: 'pending', eventType: 'envelope.completed' });

    clockMs += 6_000;
    await expect.poll(async () => (await deliveriesOf(ep))[0]?.status).toBe('succeeded');
    expect((await deliveriesOf(ep))[0]?.attemptLog.map((a) => a.statusCode)).toEqual([503, 200]);

    const replay = await bus.request(WebhookReplay, { ...ep, eventId: evtId(completed.eventId) });
    expect(replay).toMatchObject({ kind: 'replay', eventType: 'envelope.completed' });
    await r.waitFor(3);
    expect(r.received.map((h) => h.headers['webhook-id'])).toEqual(Array(3).fill(evtId(completed.eventId)));
    for (const hit of r.received) {
      const body = WEBHOOK_PAYLOADS['envelope.completed'].parse(verify(ep.secret, hit));
      expect(body.data.download?.url).toContain(`signed/${accountId}/ESG-ENVL-OPE1-TEST.pdf`);
    }
  });
});

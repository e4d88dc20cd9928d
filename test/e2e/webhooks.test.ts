import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EsignClient, verifyWebhook } from '../../libs/sdk/src/index.js';
import {
  makePdf,
  makePng,
  startWebhookReceiver,
  type ReceivedWebhook,
  type WebhookReceiver,
} from '@esign/testing';
import {
  auth,
  baseUrl,
  createAccount,
  dataUri,
  errorOf,
  jsonInit,
  sign,
  unacked,
  type TestAccount,
} from './harness';
import { linkIn, newRecipient, pageCall, send, waitForMail, type SendResult } from './send-harness';

// The shared stack runs the webhook service with WEBHOOK_ALLOW_NETWORKS=127.0.0.3/32 (receivers here
// listen there) and a retry schedule of 300 ms steps.

let account: TestAccount;
let client: EsignClient;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  account = await createAccount();
  client = new EsignClient({ apiKey: account.apiKey, baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
});

const receiver = async () => {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
};

const headersOf = (r: ReceivedWebhook) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

const signOne = async (apiKey: string, fileName = 'webhook.pdf') => {
  const res = await sign(apiKey, {
    file: { bytes: await makePdf({ pages: 1 }), name: fileName },
    fields: {
      signerName: 'Ada Lovelace',
      signerEmail: 'ada@example.com',
      signatureData: dataUri(await makePng({ width: 90, height: 30 })),
    },
  });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { auditId: res.headers.get('x-audit-id') ?? '', bytes };
};

describe('webhooks end to end', () => {
  it('delivers document.signed once, verified by standardwebhooks, with the public facts and a download link', async () => {
    const r = await receiver();
    const created = await client.createWebhook({ url: r.url, eventTypes: ['document.signed'] });
    expect(created.secret).toMatch(/^whsec_/);
    const { auditId, bytes } = await signOne(account.apiKey, 'lease.pdf');

    const [hit] = await r.waitFor(1, (h) => h.body.includes(auditId));
    const event = new Webhook(created.secret).verify(hit?.body ?? '', headersOf(hit as ReceivedWebhook)) as {
      id: string;
      type: string;
      data: Record<string, unknown> & { download: { url: string } };
    };
    expect(event.type).toBe('document.signed');
    expect(hit?.headers['webhook-id']).toBe(event.id);
    expect(event.data).toMatchObject({
      auditId,
      status: 'signed',
      fileName: 'lease.pdf',
      signer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      sendId: null,
      fileHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    });
    // The SDK's helper verifies the same request and types it.
    expect(verifyWebhook(hit?.body ?? '', hit?.headers ?? {}, created.secret).id).toBe(event.id);
    // The link serves exactly the signed PDF.
    const download = await fetch(event.data.download.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    // No file bytes, no token-looking field.
    expect(hit?.body.length).toBeLessThan(2000);
    // Once: asserted when the event has been consumed and its delivery has settled, so nothing more can come.
    await expect.poll(() => unacked('webhook-document-signed')).toBe(0);
    await expect
      .poll(async () => {
        const { deliveries } = await client.listWebhookDeliveries(created.webhook.id);
        return deliveries.find((d) => d.eventId === event.id)?.status;
      })
      .toBe('succeeded');
    expect(r.received.filter((h) => h.body.includes(auditId))).toHaveLength(1);

    // The delivery log shows it, and a replay sends it again with the same webhook-id.
    const log = await client.listWebhookDeliveries(created.webhook.id);
    const delivery = log.deliveries.find((d) => d.eventId === event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', kind: 'event', eventType: 'document.signed' });
    expect(delivery?.attemptLog[0]).toMatchObject({ statusCode: 204, succeeded: true });
    const replay = await client.replayWebhookEvent(created.webhook.id, event.id);
    expect(replay).toMatchObject({ kind: 'replay', status: 'pending', eventId: event.id });
    const both = await r.waitFor(2, (h) => h.body.includes(auditId));
    expect(both[1]?.headers['webhook-id']).toBe(event.id);
    expect(
      new Webhook(created.secret).verify(both[1]?.body ?? '', headersOf(both[1] as ReceivedWebhook)),
    ).toEqual(JSON.parse(both[1]?.body ?? ''));
  });

  it('retries a receiver that fails twice: the same webhook-id three times', async () => {
    const r = await receiver();
    r.respond((_req, n, res) => {
      res.statusCode = n <= 2 ? 500 : 204;
      res.end();
    });
    const owner = await createAccount();
    const esign = new EsignClient({ apiKey: owner.apiKey, baseUrl, maxRetries: 0 });
    const created = await esign.createWebhook({ url: r.url, eventTypes: ['document.signed'] });
    await signOne(owner.apiKey);
    const hits = await r.waitFor(3);
    expect(new Set(hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    for (const h of hits)
      expect(verifyWebhook(h.body, h.headers, created.secret)).toEqual(JSON.parse(h.body));
    const log = await esign.listWebhookDeliveries(created.webhook.id);
    expect(log.deliveries[0]?.attemptLog.map((a) => a.statusCode)).toEqual([500, 500, 204]);
  });

  it('sends a test event, and rotation signs with both secrets during the overlap', async () => {
    const r = await receiver();
    const created = await client.createWebhook({ url: r.url, eventTypes: ['signing.completed'] });
    const rotated = await client.rotateWebhookSecret(created.webhook.id, { overlapHours: 1 });
    expect((await client.getWebhook(created.webhook.id)).previousSecretExpiresAt).toBe(
      rotated.previousSecretExpiresAt,
    );
    const queued = await client.sendTestWebhook(created.webhook.id);
    expect(queued.eventType).toBe('webhook.test');
    const [hit] = await r.waitFor(1);
    for (const secret of [created.secret, rotated.secret]) {
      expect(verifyWebhook(hit?.body ?? '', hit?.headers ?? {}, secret)).toMatchObject({
        type: 'webhook.test',
        data: { webhookId: created.webhook.id },
      });
    }
  });

  it('shows the secret once, never in list or get, with Cache-Control: no-store', async () => {
    const res = await fetch(
      `${baseUrl}/api/v1/webhooks`,
      jsonInit('POST', { url: 'http://127.0.0.3:9/x', eventTypes: ['signing.viewed'] }, auth(account.apiKey)),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { secret, webhook } = (await res.json()) as { secret: string; webhook: { id: string } };
    const list = await fetch(`${baseUrl}/api/v1/webhooks`, { headers: auth(account.apiKey) });
    const text = await list.text();
    expect(text).toContain(webhook.id);
    expect(text).not.toContain(secret.slice(6));
    // Another account sees nothing of it.
    const other = await createAccount();
    const get = await fetch(`${baseUrl}/api/v1/webhooks/${webhook.id}`, { headers: auth(other.apiKey) });
    expect(get.status).toBe(404);
    await client.deleteWebhook(webhook.id);
    expect((await client.listWebhooks()).webhooks.map((w) => w.id)).not.toContain(webhook.id);
  });

  it.each([
    ['a loopback address outside the allowed network', 'http://127.0.0.2:8080/hooks', '127.0.0.2'],
    ['IPv6 loopback', 'http://[::1]:8080/hooks', '::1'],
    ['a private address', 'http://10.0.0.1/hooks', '10.0.0.1'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['an IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    [
      'a DNS name that resolves to loopback',
      'http://localhost:8080/hooks',
      'localhost resolves to 127.0.0.1',
    ],
    ['credentials in the URL', 'https://user:secret@example.com/hooks', 'credentials'],
    ['another scheme', 'ftp://example.com/hooks', 'http or https'],
  ])('refuses %s at registration', async (_name, url, message) => {
    const res = await fetch(
      `${baseUrl}/api/v1/webhooks`,
      jsonInit('POST', { url, eventTypes: ['document.signed'] }, auth(account.apiKey)),
    );
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error).toContain('url');
    expect(error).toContain(message);
  });

  it('refuses a refused URL on update too, and does not follow redirects on delivery', async () => {
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.statusCode = 307;
      res.setHeader('Location', 'http://169.254.169.254/latest/meta-data/');
      res.end();
    });
    const created = await client.createWebhook({ url: r.url, eventTypes: ['document.signed'] });
    const update = await fetch(
      `${baseUrl}/api/v1/webhooks/${created.webhook.id}`,
      jsonInit('PATCH', { url: 'http://10.1.2.3/' }, auth(account.apiKey)),
    );
    expect(update.status).toBe(400);
    await client.sendTestWebhook(created.webhook.id);
    await r.waitFor(2);
    const log = await client.listWebhookDeliveries(created.webhook.id);
    expect(log.deliveries[0]?.attemptLog[0]).toMatchObject({
      statusCode: 307,
      succeeded: false,
      error: 'redirect (307) not followed',
    });
    // Nothing reached the redirect's target: it was never requested (the receiver saw only its own URL).
    expect(r.received.every((h) => h.path === '/hooks')).toBe(true);
  });

  it('send and sign: signing.viewed, document.signed and signing.completed once each; a decline is signing.declined', async () => {
    const owner = await createAccount();
    const esign = new EsignClient({ apiKey: owner.apiKey, baseUrl, maxRetries: 0 });
    const r = await receiver();
    const created = await esign.createWebhook({
      url: r.url,
      eventTypes: [
        'document.signed',
        'signing.viewed',
        'signing.completed',
        'signing.declined',
        'signing.expired',
      ],
    });
    const pdf = await makePdf({ pages: 2, text: 'Webhook agreement' });
    const sendOne = async () => {
      const recipient = newRecipient();
      const res = await send(owner.apiKey, {
        pdf,
        fileName: 'agreement.pdf',
        recipientEmail: recipient,
        recipientName: 'Rita Recipient',
        fields: { positions: [{ x: 10, y: 70, page: 1, width: 30 }] },
      });
      expect(res.status).toBe(201);
      const sent = (await res.json()) as SendResult;
      const [mail] = await waitForMail(recipient, /^Please sign/);
      if (!mail) throw new Error('no email');
      return { recipient, sent, link: linkIn(mail) };
    };
    type Event = { id: string; type: string; data: Record<string, unknown> };
    const eventsOf = (auditId: string) =>
      r.received
        .filter((h) => h.body.includes(auditId))
        .map((h) => verifyWebhook(h.body, h.headers, created.secret) as unknown as Event);

    // Signed through the link.
    const signed = await sendOne();
    expect((await pageCall('/signing/api/view', signed.link.token, {})).status).toBe(200);
    const answer = await pageCall('/signing/api/sign', signed.link.token, {
      signerName: 'Rita Recipient',
      signature: { mode: 'type', typedName: 'Rita', color: '#111827' },
    });
    expect(answer.status).toBe(200);
    await r.waitFor(3, (h) => h.body.includes(signed.sent.auditId));
    // Once each: asserted when every event has been consumed and the three deliveries have settled.
    await expect
      .poll(() => unacked('webhook-signing-viewed', 'webhook-signing-completed', 'webhook-document-signed'))
      .toBe(0);
    await expect
      .poll(async () =>
        (await esign.listWebhookDeliveries(created.webhook.id)).deliveries.map((d) => d.status),
      )
      .toEqual(['succeeded', 'succeeded', 'succeeded']);
    const events = eventsOf(signed.sent.auditId);
    expect(events.map((e) => e.type).sort()).toEqual([
      'document.signed',
      'signing.completed',
      'signing.viewed',
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    expect(byType['signing.viewed']).toMatchObject({
      sendId: signed.sent.sendId,
      status: 'pending',
      recipient: { name: 'Rita Recipient', email: signed.recipient },
      fileName: 'agreement.pdf',
    });
    expect(byType['document.signed']).toMatchObject({
      auditId: signed.sent.auditId,
      sendId: signed.sent.sendId,
      signer: { name: 'Rita Recipient', email: signed.recipient },
    });
    expect(byType['signing.completed']).toMatchObject({
      status: 'signed',
      fileHash: byType['document.signed']?.fileHash,
    });
    const download = await fetch((byType['signing.completed']?.download as { url: string }).url);
    expect(download.status).toBe(200);
    expect(
      createHash('sha256')
        .update(Buffer.from(await download.arrayBuffer()))
        .digest('hex'),
    ).toBe(String(byType['document.signed']?.fileHash).slice('sha256:'.length));
    // No payload carries the link's token or the sender's own address.
    for (const h of r.received) {
      expect(h.body).not.toContain(signed.link.token);
      expect(h.body).not.toContain(owner.email);
    }

    // Declined through the link.
    const declined = await sendOne();
    expect(
      (await pageCall('/signing/api/decline', declined.link.token, { reason: 'Wrong dates' })).status,
    ).toBe(200);
    const [hit] = await r.waitFor(
      1,
      (h) => h.body.includes(declined.sent.auditId) && h.body.includes('declined'),
    );
    expect(verifyWebhook(hit?.body ?? '', hit?.headers ?? {}, created.secret)).toMatchObject({
      type: 'signing.declined',
      data: { sendId: declined.sent.sendId, status: 'declined', reason: 'Wrong dates' },
    });
  });

  it('refuses API keys of accounts without API access', async () => {
    const pro = await createAccount('pro');
    const res = await fetch(`${baseUrl}/api/v1/webhooks`, { headers: auth(pro.apiKey) });
    expect(res.status).toBe(403);
  });
});

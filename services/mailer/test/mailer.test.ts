import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, encodeJson, endpoint, type Bus } from '@esign/bus';
import {
  ServiceError,
  SigningAttachLink,
  SigningCanceled,
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningReminderDue,
  SigningRequested,
  AccountUsageGet,
  WebhookEndpointDisabled,
  type TSigningCompletedEvent,
  type TWebhookEndpointDisabledEvent,
  type TSigningRequestedEvent,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  makePdf,
  startSmtpCapture,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
  type CapturedMail,
  type SmtpCapture,
  type TestDatabase,
  type TestS3,
  unackedMessages,
} from '@esign/testing';
import { loadMailerConfig, startMailerService, type MailerService } from '../src';

const BASE_URL = 'https://sign.example.test';
const ATTACH_MAX = 40 * 1024;

let database: TestDatabase;
let s3: TestS3;
let smtp: SmtpCapture;
let docs: Bus;
let mailer: MailerService;
let blob: BlobStore;
let prefix: string;
let mailerEnv: Record<string, string>;
const logLines: string[] = [];
/** What the stand-in document-store was asked by `signing.attach-link`. */
const attached: { sendId: string; eventId: string; tokenHash: string; mode: string }[] = [];
const EXPIRES_AT = '2030-01-31T12:00:00.000Z';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const sendId = () => `send_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

const requested = (overrides: Partial<TSigningRequestedEvent> = {}): TSigningRequestedEvent => ({
  eventId: randomUUID(),
  sendId: sendId(),
  auditId: 'ESG-ABCD-EFGH-JKLM',
  accountId: randomUUID(),
  senderEmail: 'sender@example.com',
  recipientEmail: `ada+${randomUUID().slice(0, 8)}@example.com`,
  recipientName: 'Ada Lovelace',
  fileName: 'contract.pdf',
  subject: 'Please sign: contract.pdf',
  message: 'Here is the contract we discussed.',
  expiresAt: EXPIRES_AT,
  requestedAt: '2029-12-31T12:00:00.000Z',
  resend: false,
  ...overrides,
});

const mailsTo = (address: string): CapturedMail[] =>
  smtp.messages.filter(
    (m) => m.envelope.to.includes(address.toLowerCase()) || m.envelope.to.includes(address),
  );

const waitForMail = async (address: string, count = 1): Promise<CapturedMail[]> => {
  await expect.poll(() => mailsTo(address).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return mailsTo(address);
};

const unacked = (...durables: string[]) => unackedMessages(docs, ...durables);
const MAILER_CONSUMERS = [
  'mailer-signing-requested',
  'mailer-signing-reminder-due',
  'mailer-signing-completed',
  'mailer-signing-declined',
  'mailer-signing-expired',
  'mailer-signing-canceled',
  'mailer-sign-in-link-requested',
  'mailer-webhook-endpoint-disabled',
];

const deliveryRows = async (eventId: string) => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      kind: string;
      recipient: string;
      state: string;
      attempts: number;
      last_error: string | null;
      message_id: string | null;
    }>(
      'select kind, recipient, state, attempts, last_error, message_id from mailer.deliveries where event_id = $1 order by recipient',
      [eventId],
    );
    return rows;
  } finally {
    await client.end();
  }
};

const linkIn = (text: string): string => {
  const match = new RegExp(`${BASE_URL.replace(/\./g, '\\.')}/s/([A-Za-z0-9_-]+)`).exec(text);
  if (!match?.[1]) throw new Error('no signing link in the email');
  return match[1];
};

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  prefix = uniqueBusPrefix('mailer');
  database = await createTestDatabase('mailer_t');
  s3 = await startTestS3();
  smtp = await startSmtpCapture({ auth: { user: 'relay-user', password: 'relay-secret' } });
  const quiet = createLogger({ service: 'test', level: 'error' });
  docs = await connectBus({ url: natsUrl, name: 'document-store', prefix, logger: quiet, timeoutMs: 5000 });
  await docs.serve([
    endpoint(SigningAttachLink, (request) => {
      attached.push(request);
      if (request.sendId.startsWith('send_gone')) {
        return Promise.reject(new ServiceError('conflict', 'the request was canceled'));
      }
      return Promise.resolve({ sendId: request.sendId, expiresAt: EXPIRES_AT });
    }),
  ]);
  const env = (mailerEnv = {
    NATS_URL: natsUrl,
    BUS_PREFIX: prefix,
    DATABASE_URL: database.url,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_REGION: s3.region,
    S3_BUCKET: 'esign',
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_TLS: 'none',
    SMTP_USER: 'relay-user',
    SMTP_PASSWORD: 'relay-secret',
    MAIL_FROM: 'eSign <no-reply@esign.test>',
    PUBLIC_BASE_URL: BASE_URL,
    MAIL_ATTACHMENT_MAX_BYTES: String(ATTACH_MAX),
    MAIL_RETRY_DELAYS_MS: '200',
    LOG_LEVEL: 'debug',
  });
  blob = createBlobStore({
    endpoint: s3.endpoint,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: s3.region,
    bucket: 'esign',
  });
  await blob.ensureBucket();
  mailer = await startMailerService(loadMailerConfig(env), {
    logger: createLogger({ service: 'mailer', level: 'debug', write: (line) => void logLines.push(line) }),
  });
});

afterAll(async () => {
  await mailer?.stop();
  await docs?.drain();
  await smtp?.stop();
  await s3?.stop();
  await database?.drop();
});

beforeEach(() => smtp.failNext(0));

describe('the request to sign', () => {
  it('emails the recipient a link whose token only document-store ever sees hashed', async () => {
    const event = requested();
    await docs.publish(SigningRequested, event, { msgId: event.eventId });

    const [mail] = await waitForMail(event.recipientEmail);
    if (!mail) throw new Error('no email');
    expect(mail.envelope.to).toEqual([event.recipientEmail]);
    expect(mail.parsed.subject).toBe('Please sign: contract.pdf');
    expect(mail.parsed.from?.value).toEqual([{ name: 'eSign', address: 'no-reply@esign.test' }]);
    expect(mail.parsed.replyTo?.value[0]?.address).toBe('sender@example.com');
    expect(mail.parsed.text).toContain('sender@example.com asks you to sign "contract.pdf"');
    expect(mail.parsed.text).toContain('> Here is the contract we discussed.');
    expect(mail.parsed.text).toContain('2030-01-31 12:00 UTC');
    const token = linkIn(mail.parsed.text ?? '');
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(mail.parsed.html || '').toContain(`href="${BASE_URL}/s/${token}"`);
    const attach = attached.find((a) => a.sendId === event.sendId);
    expect(attach).toEqual({
      sendId: event.sendId,
      eventId: event.eventId,
      tokenHash: sha256(token),
      mode: 'replace',
    });

    // The log records the send right after the SMTP server accepted it.
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('sent');
    const rows = await deliveryRows(event.eventId);
    expect(rows).toEqual([
      expect.objectContaining({ kind: 'signing-request', recipient: event.recipientEmail, attempts: 1 }),
    ]);
    expect(rows[0]?.message_id).toBe(mail.parsed.messageId);
  });

  it('makes header injection impossible and escapes the sender’s text in HTML', async () => {
    const event = requested({
      subject: 'Sign this\r\nBcc: victim@evil.test\r\nX-Injected: yes',
      message:
        '<script>alert("x")</script>\r\nBcc: other@evil.test\n<a href="https://evil.test">click</a> & more',
      recipientName: 'Eve <b>Bold</b>\r\nCc: cc@evil.test',
    });
    await docs.publish(SigningRequested, event, { msgId: event.eventId });

    const [mail] = await waitForMail(event.recipientEmail);
    if (!mail) throw new Error('no email');
    expect(mail.envelope.to).toEqual([event.recipientEmail]);
    expect(mail.parsed.bcc).toBeUndefined();
    expect(mail.parsed.cc).toBeUndefined();
    expect(mail.parsed.headers.has('x-injected')).toBe(false);
    expect(mail.parsed.subject).toBe('Sign this Bcc: victim@evil.test X-Injected: yes');
    const head = mail.raw.toString('latin1').split(/\r\n\r\n/)[0] ?? '';
    expect(head).not.toMatch(/^(bcc|cc|x-injected):/im);
    const html = mail.parsed.html || '';
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;a href=&quot;https://evil.test&quot;&gt;click&lt;/a&gt; &amp; more');
    expect(html).not.toContain('<b>Bold</b>');
    expect(html).not.toContain('href="https://evil.test"');
    // The plain text keeps the message as written (it is not HTML), quoted.
    expect(mail.parsed.text).toContain('> <script>alert("x")</script>');
  });

  it('sends nothing a second time when the same event is delivered again', async () => {
    const event = requested();
    await docs.publish(SigningRequested, event, { msgId: event.eventId });
    await waitForMail(event.recipientEmail);
    // The same event again, past JetStream's de-duplication (a new message id), as a replay would be.
    await docs.publish(SigningRequested, event, { msgId: randomUUID() });
    await docs.publish(SigningRequested, event, { msgId: randomUUID() });
    await expect
      .poll(() => logLines.filter((l) => l.includes('not sent again') && l.includes(event.eventId)).length)
      .toBe(2);
    expect(mailsTo(event.recipientEmail)).toHaveLength(1);
    expect(attached.filter((a) => a.eventId === event.eventId)).toHaveLength(1);
    expect(await deliveryRows(event.eventId)).toEqual([
      expect.objectContaining({ state: 'sent', attempts: 1 }),
    ]);
  });

  it('retries a delivery the SMTP server refused, records it, and then sends it once', async () => {
    const event = requested();
    smtp.failNext(1);
    await docs.publish(SigningRequested, event, { msgId: event.eventId });
    const [mail] = await waitForMail(event.recipientEmail);
    expect(smtp.refused).toBeGreaterThanOrEqual(1);
    // Acked: the event is done with, so no later attempt can send it again.
    await expect.poll(() => unacked('mailer-signing-requested')).toBe(0);
    expect(mailsTo(event.recipientEmail)).toHaveLength(1);
    const [row] = await deliveryRows(event.eventId);
    expect(row).toMatchObject({ state: 'sent', attempts: 2 });
    expect(row?.last_error).toContain('451');
    // Each attempt made a new link; the one in the email is the last one attached.
    const attempts = attached.filter((a) => a.eventId === event.eventId);
    expect(attempts).toHaveLength(2);
    expect(attempts.at(-1)?.tokenHash).toBe(sha256(linkIn(mail?.parsed.text ?? '')));
  });

  it('sends nothing when the request is no longer pending', async () => {
    const event = requested({ sendId: `send_gone${randomUUID().replace(/-/g, '').slice(0, 16)}` });
    await docs.publish(SigningRequested, event, { msgId: event.eventId });
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('skipped');
    expect(mailsTo(event.recipientEmail)).toHaveLength(0);
  });

  it('reminds with a link added to the earlier ones, and never after expiry', async () => {
    const base = requested();
    const due = { ...base, reminderNumber: 1 };
    const late = { ...base, eventId: randomUUID(), reminderNumber: 2, expiresAt: '2020-01-01T00:00:00.000Z' };
    await docs.publish(SigningReminderDue, late, { msgId: late.eventId });
    await docs.publish(SigningReminderDue, due, { msgId: due.eventId });
    const [mail] = await waitForMail(base.recipientEmail);
    expect(mail?.parsed.subject).toBe('Reminder: Please sign: contract.pdf');
    const token = linkIn(mail?.parsed.text ?? '');
    expect(attached.find((a) => a.eventId === due.eventId)).toMatchObject({
      mode: 'add',
      tokenHash: sha256(token),
    });
    await expect.poll(async () => (await deliveryRows(late.eventId))[0]?.state).toBe('skipped');
    expect(mailsTo(base.recipientEmail)).toHaveLength(1);
  });
});

describe('after the request ends', () => {
  const completed = async (pdf: Buffer): Promise<TSigningCompletedEvent> => {
    const base = requested();
    const auditId = 'ESG-SIGN-EDPD-F234';
    const objectKey = `signed/${base.accountId}/${auditId}.pdf`;
    await blob.put(objectKey, pdf, { contentType: 'application/pdf' });
    return {
      eventId: base.eventId,
      sendId: base.sendId,
      auditId,
      accountId: base.accountId,
      senderEmail: `owner+${randomUUID().slice(0, 8)}@example.com`,
      recipientEmail: base.recipientEmail,
      recipientName: base.recipientName,
      fileName: 'contract.pdf',
      signedAt: '2029-12-31T15:30:00.000Z',
      fileHash: `sha256:${sha256(pdf)}`,
      objectKey,
      size: pdf.length,
    };
  };

  it('sends the signed PDF, attached, to the sender and to the recipient, once each', async () => {
    const pdf = await makePdf({ pages: 1 });
    expect(pdf.length).toBeLessThan(ATTACH_MAX);
    const event = await completed(pdf);
    await docs.publish(SigningCompleted, event, { msgId: event.eventId });
    await docs.publish(SigningCompleted, event, { msgId: randomUUID() });

    for (const address of [event.senderEmail, event.recipientEmail]) {
      const [mail] = await waitForMail(address);
      expect(mail?.envelope.to).toEqual([address]);
      expect(mail?.parsed.subject).toBe('Signed: contract.pdf');
      expect(mail?.parsed.text).toContain('ESG-SIGN-EDPD-F234');
      expect(mail?.parsed.text).toContain(event.fileHash);
      const [attachment] = mail?.parsed.attachments ?? [];
      expect(attachment?.filename).toBe('contract-signed.pdf');
      expect(attachment?.contentType).toBe('application/pdf');
      expect(attachment?.content.equals(pdf)).toBe(true);
    }
    // At least one "not sent again" per address; more when the two deliveries met mid-attempt (one
    // found the other's email `sending`, was redelivered, and then found both sent).
    await expect
      .poll(() => logLines.filter((l) => l.includes('not sent again') && l.includes(event.eventId)).length)
      .toBeGreaterThanOrEqual(2);
    expect(mailsTo(event.senderEmail)).toHaveLength(1);
    expect(mailsTo(event.recipientEmail)).toHaveLength(1);
  });

  it('sends a time-limited download link instead when the PDF is larger than the attachment limit', async () => {
    const pdf = Buffer.concat([await makePdf({ pages: 1 }), Buffer.alloc(ATTACH_MAX, 0x20)]);
    const event = await completed(pdf);
    await docs.publish(SigningCompleted, event, { msgId: event.eventId });
    const [mail] = await waitForMail(event.senderEmail);
    expect(mail?.parsed.attachments).toHaveLength(0);
    const url = /(http:\/\/\S+X-Amz-Signature=[0-9a-f]+)/.exec(mail?.parsed.text ?? '')?.[1];
    if (!url) throw new Error('no download link');
    expect(url).toContain('X-Amz-Expires=604800');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    expect(res.headers.get('content-disposition')).toContain('contract-signed.pdf');
  });

  it('tells the sender the recipient declined, with the reason escaped', async () => {
    const base = requested();
    const event = {
      ...base,
      senderEmail: `owner+${randomUUID().slice(0, 8)}@example.com`,
      declinedAt: '2029-12-31T16:00:00.000Z',
      reason: 'Clause 4 is wrong <img src=x onerror=alert(1)>',
    };
    await docs.publish(SigningDeclined, event, { msgId: event.eventId });
    const [mail] = await waitForMail(event.senderEmail);
    expect(mail?.parsed.subject).toBe('Declined: contract.pdf');
    expect(mail?.parsed.text).toContain('> Clause 4 is wrong <img src=x onerror=alert(1)>');
    expect(mail?.parsed.html).toContain('Clause 4 is wrong &lt;img src=x onerror=alert(1)&gt;');
    expect(mail?.parsed.replyTo?.value[0]?.address).toBe(base.recipientEmail);
    expect(mailsTo(base.recipientEmail)).toHaveLength(0);
  });

  it('tells the sender about expiry and the recipient about a cancellation', async () => {
    const base = requested();
    const sender = `owner+${randomUUID().slice(0, 8)}@example.com`;
    const expired = { ...base, senderEmail: sender, expiredAt: '2030-01-31T12:00:00.000Z' };
    const canceled = {
      ...base,
      eventId: randomUUID(),
      senderEmail: sender,
      canceledAt: '2030-01-01T00:00:00.000Z',
    };
    await docs.publish(SigningExpired, expired, { msgId: expired.eventId });
    await docs.publish(SigningCanceled, canceled, { msgId: canceled.eventId });
    const [toSender] = await waitForMail(sender);
    const [toRecipient] = await waitForMail(base.recipientEmail);
    expect(toSender?.parsed.subject).toBe('Expired unsigned: contract.pdf');
    expect(toRecipient?.parsed.subject).toBe('Canceled: contract.pdf');
    expect(toRecipient?.parsed.text).toContain('no longer works');
  });
});

describe('a disabled webhook endpoint', () => {
  /** The stand-in key service: `key.get-usage` knows one account. */
  let keys: Bus;
  const owner = { accountId: randomUUID(), email: `owner+${randomUUID().slice(0, 8)}@example.com` };
  let lookups = 0;

  beforeAll(async () => {
    keys = await connectBus({
      url: await testNatsUrl(),
      name: 'key',
      prefix,
      logger: createLogger({ service: 'test', level: 'error' }),
      timeoutMs: 5000,
    });
    await keys.serve([
      endpoint(AccountUsageGet, ({ accountId }) => {
        lookups += 1;
        if (accountId !== owner.accountId) return Promise.reject(new ServiceError('not_found', 'no account'));
        return Promise.resolve({
          accountId,
          email: owner.email,
          plan: 'business' as const,
          limits: { documentsPerMonth: null, apiAccess: true, maxFileBytes: 25 * 1024 * 1024 },
          month: '2030-01',
          documentsUsed: 0,
          documentsRemaining: null,
          resetsAt: '2030-02-01T00:00:00.000Z',
        });
      }),
    ]);
  });
  afterAll(async () => {
    await keys?.drain();
  });

  const disabled = (
    overrides: Partial<TWebhookEndpointDisabledEvent> = {},
  ): TWebhookEndpointDisabledEvent => ({
    eventId: randomUUID(),
    accountId: owner.accountId,
    webhookId: 'wh_4Qx9TnV2kLm8RbZc1YdFh7Ws',
    url: 'https://hooks.example.com/esign?x=<b>',
    reason: 'failing',
    failingSince: '2030-01-01T08:00:00.000Z',
    disabledAt: '2030-01-06T08:05:00.000Z',
    ...overrides,
  });

  it('emails the account owner the URL, the reason and how to re-enable it, once however often the event comes', async () => {
    const event = disabled();
    await docs.publish(WebhookEndpointDisabled, event, { msgId: event.eventId });
    const [mail] = await waitForMail(owner.email);
    expect(mail?.envelope.to).toEqual([owner.email]);
    expect(mail?.parsed.subject).toBe('Webhook endpoint disabled: https://hooks.example.com/esign?x=<b>');
    const text = mail?.parsed.text ?? '';
    expect(text).toContain('We stopped sending webhook events to https://hooks.example.com/esign?x=<b>.');
    expect(text).toContain('Every delivery to it has failed since 2030-01-01 08:00 UTC');
    expect(text).toContain('Disabled at: 2030-01-06 08:05 UTC');
    expect(text).toContain(
      'PATCH /api/v1/webhooks/wh_4Qx9TnV2kLm8RbZc1YdFh7Ws and the body {"enabled": true}',
    );
    expect(text).toContain(`${BASE_URL}/dashboard#/webhooks/wh_4Qx9TnV2kLm8RbZc1YdFh7Ws`);
    const html = String(mail?.parsed.html);
    expect(html).toContain('https://hooks.example.com/esign?x=&lt;b&gt;');
    expect(html).not.toContain('<b>');
    // The mail reaches the SMTP server before the mailer records it as sent: wait for the record.
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('sent');
    expect(await deliveryRows(event.eventId)).toMatchObject([
      { kind: 'webhook-disabled', recipient: owner.email, state: 'sent', attempts: 1 },
    ]);

    // The same event again (a redelivery, or a republish past the stream's dedupe): no second email.
    const seen = lookups;
    await docs.publish(WebhookEndpointDisabled, event, { msgId: randomUUID() });
    await expect.poll(() => lookups).toBeGreaterThan(seen);
    await expect.poll(() => unacked('mailer-webhook-endpoint-disabled')).toBe(0);
    expect(mailsTo(owner.email)).toHaveLength(1);
    expect(await deliveryRows(event.eventId)).toMatchObject([{ state: 'sent', attempts: 1 }]);
  });

  it('says "410 Gone" for a receiver that asked to stop, and skips an account that no longer exists', async () => {
    const gone = disabled({ reason: 'gone', failingSince: null, url: 'https://gone.example.com/hooks' });
    await docs.publish(WebhookEndpointDisabled, gone, { msgId: gone.eventId });
    await expect
      .poll(() => mailsTo(owner.email).find((m) => m.parsed.subject?.includes('gone.example.com')))
      .toBeDefined();
    const mail = mailsTo(owner.email).find((m) => m.parsed.subject?.includes('gone.example.com'));
    expect(mail?.parsed.text).toContain('Your receiver answered 410 Gone, which tells us to stop.');

    const orphan = disabled({ accountId: randomUUID() });
    const before = smtp.messages.length;
    await docs.publish(WebhookEndpointDisabled, orphan, { msgId: orphan.eventId });
    await expect.poll(async () => (await deliveryRows(orphan.eventId))[0]?.state).toBe('skipped');
    expect(await deliveryRows(orphan.eventId)).toMatchObject([
      { recipient: `account:${orphan.accountId}`, last_error: 'the account no longer exists' },
    ]);
    expect(smtp.messages.length).toBe(before);
  });
});

describe('secrets', () => {
  it('keeps every signing token out of the database and the logs', async () => {
    const tokens = smtp.messages.flatMap((m) =>
      [...(m.parsed.text ?? '').matchAll(/\/s\/([A-Za-z0-9_-]{43})/g)].map((x) => x[1] ?? ''),
    );
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ dump: string }>(
      "select coalesce(string_agg(d::text, E'\\n'), '') as dump from mailer.deliveries d",
    );
    await client.end();
    const dump = rows[0]?.dump ?? '';
    expect(dump).toContain('signing-request');
    const logs = logLines.join('\n');
    expect(logs).toContain('email sent');
    for (const token of tokens) {
      expect(dump).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });

  it('mails what was published while it was down once it is back, and nothing it had sent', async () => {
    await mailer.stop();
    const event = requested();
    await docs.publish(SigningRequested, event, { msgId: event.eventId });
    // It waits in the stream for the consumer.
    expect(await unacked('mailer-signing-requested')).toBeGreaterThan(0);
    expect(mailsTo(event.recipientEmail)).toHaveLength(0);
    const before = smtp.messages.length;
    mailer = await startMailerService(loadMailerConfig(mailerEnv), {
      logger: createLogger({ service: 'mailer', level: 'debug', write: (line) => void logLines.push(line) }),
    });
    await waitForMail(event.recipientEmail);
    await expect.poll(() => unacked(...MAILER_CONSUMERS)).toBe(0);
    // Only the one new email: the consumers resumed where they had acked.
    expect(smtp.messages.length).toBe(before + 1);
  });

  it('parks an event that fails its contract and logs where it is', async () => {
    const ack = await docs.jetstream.publish(
      `${prefix}${SigningRequested.subject}`,
      encodeJson({ sendId: 'nope' }),
    );
    await expect
      .poll(() =>
        logLines.find((l) => l.includes('event parked') && l.includes(`"streamSequence":${ack.seq}`)),
      )
      .toBeDefined();
  });
});

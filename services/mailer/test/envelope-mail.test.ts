import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  EnvelopeAttachLink,
  EnvelopeCanceled,
  EnvelopeCompleted,
  EnvelopeDeclined,
  EnvelopeExpired,
  EnvelopeCodeRequested,
  EnvelopeRecipientTurn,
  EnvelopeSetCode,
  ServiceError,
  type TEnvelopeCompletedEvent,
  type TEnvelopeEndedEvent,
  type TEventRecipient,
  type TRecipientTurnEvent,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  makePdf,
  startSmtpCapture,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
  unackedMessages,
  type CapturedMail,
  type SmtpCapture,
  type TestDatabase,
  type TestS3,
} from '@esign/testing';
import { loadMailerConfig, startMailerService, type MailerService } from '../src';

const BASE_URL = 'https://sign.example.test';
const ATTACH_MAX = 40 * 1024;
const EXPIRES_AT = '2030-01-31T12:00:00.000Z';

let database: TestDatabase;
let s3: TestS3;
let smtp: SmtpCapture;
let docs: Bus;
let mailer: MailerService;
let blob: BlobStore;
const logLines: string[] = [];
/** What the stand-in document-store was asked by `envelope.attach-link`. */
const attached: {
  recipientId: string;
  eventId?: string;
  tokenHash: string;
  mode: string;
  codeHash?: string;
}[] = [];
/** What the stand-in was asked by `envelope.set-code`; links whose code it refuses (`conflict`). */
const codesSet: { tokenHash: string; codeHash: string; eventId: string }[] = [];
const verifiedLinks = new Set<string>();
const CODE_EXPIRES_AT = '2030-01-02T10:10:00.000Z';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const id = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 24)}`;
const address = (who: string) => `${who}+${randomUUID().slice(0, 8)}@example.com`;

const recipient = (role: TEventRecipient['role'], order = 1, name = 'Ada Lovelace'): TEventRecipient => ({
  recipientId: id('rcp_'),
  name,
  email: address(role),
  role,
  order,
});

const base = () => ({
  eventId: randomUUID(),
  envelopeId: id('env_'),
  auditId: 'ESG-ENVL-OPE1-TEST',
  accountId: randomUUID(),
  senderEmail: address('sender'),
  subject: 'Please sign the lease',
  message: 'Two signers, then the landlord approves. <b>Thanks</b>',
  fileName: 'lease.pdf',
  occurredAt: '2030-01-02T10:00:00.000Z',
});

const turn = (overrides: Partial<TRecipientTurnEvent> = {}): TRecipientTurnEvent => ({
  ...base(),
  recipient: recipient('signer'),
  reason: 'turn',
  expiresAt: EXPIRES_AT,
  ...overrides,
});

const mailsTo = (to: string): CapturedMail[] =>
  smtp.messages.filter((m) => m.envelope.to.includes(to.toLowerCase()));

const waitForMail = async (to: string): Promise<CapturedMail> => {
  await expect.poll(() => mailsTo(to).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  const [mail] = mailsTo(to);
  if (!mail) throw new Error(`no email to ${to}`);
  return mail;
};

const linkIn = (text: string): string => {
  const match = /https:\/\/sign\.example\.test\/e\/([A-Za-z0-9_-]+)/.exec(text);
  if (!match?.[1]) throw new Error('no envelope link in the email');
  return match[1];
};

const query = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
};

const deliveryRows = (eventId: string) =>
  query<{
    kind: string;
    recipient: string;
    send_id: string;
    state: string;
    attempts: number;
    last_error: string | null;
  }>(
    'select kind, recipient, send_id, state, attempts, last_error from mailer.deliveries where event_id = $1 order by recipient',
    [eventId],
  );

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('envmail');
  database = await createTestDatabase('mailer_env_t');
  s3 = await startTestS3();
  smtp = await startSmtpCapture();
  docs = await connectBus({
    url: natsUrl,
    name: 'document-store',
    prefix,
    logger: createLogger({ service: 'test', level: 'error' }),
    timeoutMs: 5000,
  });
  // Stands in for document-store, another service: records the hashes it is given.
  await docs.serve([
    endpoint(EnvelopeAttachLink, (request) => {
      attached.push(request);
      if (request.recipientId.startsWith('rcp_gone')) {
        return Promise.reject(new ServiceError('conflict', 'the recipient has already signed'));
      }
      return Promise.resolve({
        envelopeId: 'env_0123456789abcdefABCDEF',
        recipientId: request.recipientId,
        expiresAt: EXPIRES_AT,
        ...(request.codeHash ? { codeExpiresAt: CODE_EXPIRES_AT } : {}),
      });
    }),
    endpoint(EnvelopeSetCode, (request) => {
      codesSet.push(request);
      if (verifiedLinks.has(request.tokenHash)) {
        return Promise.reject(new ServiceError('conflict', 'this link needs no code'));
      }
      return Promise.resolve({
        envelopeId: 'env_0123456789abcdefABCDEF',
        recipientId: 'rcp_0123456789abcdefABCDEF',
        codeExpiresAt: CODE_EXPIRES_AT,
      });
    }),
  ]);
  blob = createBlobStore({
    endpoint: s3.endpoint,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: s3.region,
    bucket: 'esign',
  });
  await blob.ensureBucket();
  mailer = await startMailerService(
    loadMailerConfig({
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
      MAIL_FROM: 'eSign <no-reply@esign.test>',
      PUBLIC_BASE_URL: BASE_URL,
      MAIL_ATTACHMENT_MAX_BYTES: String(ATTACH_MAX),
      MAIL_RETRY_DELAYS_MS: '200',
      LOG_LEVEL: 'debug',
    }),
    {
      logger: createLogger({ service: 'mailer', level: 'debug', write: (line) => void logLines.push(line) }),
    },
  );
});

afterAll(async () => {
  await mailer?.stop();
  await docs?.drain();
  await smtp?.stop();
  await s3?.stop();
  await database?.drop();
});

describe("a recipient's turn", () => {
  it('emails a /e/<token> link whose SHA-256 alone went to envelope.attach-link', async () => {
    const event = turn();
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });

    const mail = await waitForMail(event.recipient.email);
    expect(mail.envelope.to).toEqual([event.recipient.email]);
    expect(mail.parsed.subject).toBe('Please sign the lease');
    expect(mail.parsed.replyTo?.value[0]?.address).toBe(event.senderEmail);
    const text = mail.parsed.text ?? '';
    expect(text).toContain(`${event.senderEmail} asks you to sign "lease.pdf".`);
    expect(text).toContain('> Two signers, then the landlord approves. <b>Thanks</b>');
    expect(text).toContain('You are asked to: sign');
    expect(text).toContain('Link valid until: 2030-01-31 12:00 UTC');
    const token = linkIn(text);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const html = String(mail.parsed.html);
    expect(html).toContain(`href="${BASE_URL}/e/${token}"`);
    expect(html).toContain('&lt;b&gt;Thanks&lt;/b&gt;');
    expect(html).not.toContain('<b>Thanks</b>');
    expect(attached.filter((a) => a.recipientId === event.recipient.recipientId)).toEqual([
      {
        recipientId: event.recipient.recipientId,
        eventId: event.eventId,
        tokenHash: sha256(token),
        mode: 'replace',
      },
    ]);
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('sent');
    expect(await deliveryRows(event.eventId)).toMatchObject([
      { kind: 'envelope-turn', send_id: event.envelopeId, attempts: 1 },
    ]);
  });

  it('asks an approver to approve, and reminds with a link added to the earlier ones', async () => {
    const approver = recipient('approver', 2, 'Landlord');
    const event = turn({ recipient: approver, reason: 'reminder', message: null });
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });
    const mail = await waitForMail(approver.email);
    expect(mail.parsed.subject).toBe('Reminder: Please sign the lease');
    const text = mail.parsed.text ?? '';
    expect(text).toContain(`${event.senderEmail} is still waiting for you to approve "lease.pdf".`);
    expect(text).toContain('Review and approve');
    expect(text).toContain('You are asked to: approve');
    expect(text).not.toContain('Message from');
    expect(attached.find((a) => a.eventId === event.eventId)).toMatchObject({
      mode: 'add',
      tokenHash: sha256(linkIn(text)),
    });
  });

  it('sends nothing a second time when the same event is delivered again', async () => {
    const event = turn();
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });
    await waitForMail(event.recipient.email);
    // Past JetStream's de-duplication (a new message id), as a replay would be.
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: randomUUID() });
    await expect
      .poll(() => logLines.filter((l) => l.includes('not sent again') && l.includes(event.eventId)).length)
      .toBe(1);
    expect(mailsTo(event.recipient.email)).toHaveLength(1);
    expect(attached.filter((a) => a.eventId === event.eventId)).toHaveLength(1);
    expect(await deliveryRows(event.eventId)).toMatchObject([{ state: 'sent', attempts: 1 }]);
  });

  it('sends nothing and records the email skipped when attach-link answers conflict', async () => {
    const gone = { ...recipient('signer'), recipientId: id('rcp_gone') };
    const event = turn({ recipient: gone });
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('skipped');
    expect((await deliveryRows(event.eventId))[0]?.last_error).toContain('conflict');
    expect(attached.filter((a) => a.eventId === event.eventId)).toHaveLength(1);
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-recipient-turn')).toBe(0);
    expect(mailsTo(gone.email)).toHaveLength(0);
  });
});

describe('when the envelope ends', () => {
  it('sends the completed PDF, attached, to the sender and every recipient, people in copy included', async () => {
    const pdf = await makePdf({ pages: 1 });
    expect(pdf.length).toBeLessThan(ATTACH_MAX);
    const start = base();
    const objectKey = `signed/${start.accountId}/${start.auditId}.pdf`;
    await blob.put(objectKey, pdf, { contentType: 'application/pdf' });
    const recipients = [
      recipient('signer', 1, 'Ann Lee'),
      recipient('signer', 1, 'Bob Ray'),
      recipient('approver', 2, 'Landlord'),
      recipient('cc', 3, 'Accountant'),
    ];
    const event: TEnvelopeCompletedEvent = {
      ...start,
      recipients,
      fileHash: `sha256:${sha256(pdf)}`,
      objectKey,
      size: pdf.length,
      completedAt: '2030-01-03T09:30:00.000Z',
    };
    await docs.publish(EnvelopeCompleted, event, { msgId: event.eventId });
    await docs.publish(EnvelopeCompleted, event, { msgId: randomUUID() });

    for (const to of [event.senderEmail, ...recipients.map((r) => r.email)]) {
      const mail = await waitForMail(to);
      expect(mail.envelope.to).toEqual([to]);
      expect(mail.parsed.subject).toBe('Completed: lease.pdf');
      const text = mail.parsed.text ?? '';
      expect(text).toContain('is complete: every signer and approver has acted');
      expect(text).toMatch(/Signed by: Ann Lee( \(\S+\))?, Bob Ray/);
      expect(text).toContain('Approved by: Landlord');
      expect(text).toContain(event.fileHash);
      const [attachment, ...more] = mail.parsed.attachments;
      expect(more).toHaveLength(0);
      expect(attachment?.filename).toBe('lease-signed.pdf');
      expect(attachment?.contentType).toBe('application/pdf');
      expect(attachment?.content.equals(pdf)).toBe(true);
    }
    expect(mailsTo(recipients[3]?.email ?? '')[0]?.parsed.text).toContain('to you in copy');
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-completed')).toBe(0);
    const rows = await deliveryRows(event.eventId);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.kind === 'envelope-completed' && r.state === 'sent')).toBe(true);
    for (const to of [event.senderEmail, ...recipients.map((r) => r.email)]) {
      expect(mailsTo(to)).toHaveLength(1);
    }
  });

  it('retries the one email the SMTP server refused, without sending the others twice, and mails an address once', async () => {
    const pdf = await makePdf({ pages: 1 });
    const start = base();
    const objectKey = `signed/${start.accountId}/ESG-RTRY-0000-0001.pdf`;
    await blob.put(objectKey, pdf, { contentType: 'application/pdf' });
    // The sender is also in copy: one email to that address, not two.
    const selfCopy = { ...recipient('cc', 2, 'Me Again'), email: start.senderEmail };
    const signer = recipient('signer', 1, 'Ann Lee');
    const event: TEnvelopeCompletedEvent = {
      ...start,
      recipients: [signer, selfCopy],
      fileHash: `sha256:${sha256(pdf)}`,
      objectKey,
      size: pdf.length,
      completedAt: '2030-01-03T09:30:00.000Z',
    };
    smtp.failNext(1);
    await docs.publish(EnvelopeCompleted, event, { msgId: event.eventId });
    await waitForMail(event.senderEmail);
    await waitForMail(signer.email);
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-completed')).toBe(0);
    expect(mailsTo(event.senderEmail)).toHaveLength(1);
    expect(mailsTo(signer.email)).toHaveLength(1);
    const rows = await deliveryRows(event.eventId);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.state === 'sent')).toBe(true);
    // The sender's email was refused once and sent on the redelivery; the signer's was sent once.
    expect(rows.find((r) => r.recipient === event.senderEmail)).toMatchObject({ attempts: 2 });
    expect(rows.find((r) => r.recipient === event.senderEmail)?.last_error).toContain('451');
    expect(rows.find((r) => r.recipient === signer.email)).toMatchObject({ attempts: 1 });
  });

  it('tells the sender and those who acted who declined and why, with no document', async () => {
    const signed = recipient('signer', 1, 'Ann Lee');
    const decliner = recipient('approver', 2, 'Landlord');
    const bystander = recipient('signer', 3, 'Not Yet');
    const event = {
      ...base(),
      decliner,
      reason: 'Rent is wrong <img src=x onerror=alert(1)>',
      notify: [signed],
    };
    await docs.publish(EnvelopeDeclined, event, { msgId: event.eventId });

    const toSender = await waitForMail(event.senderEmail);
    const toSigner = await waitForMail(signed.email);
    for (const mail of [toSender, toSigner]) {
      expect(mail.parsed.subject).toBe('Declined: lease.pdf');
      const text = mail.parsed.text ?? '';
      expect(text).toContain('Landlord');
      expect(text).toContain('declined to approve "lease.pdf"');
      expect(text).toContain('> Rent is wrong <img src=x onerror=alert(1)>');
      expect(text).not.toMatch(/is complete|attached/i);
      expect(String(mail.parsed.html)).toContain('Rent is wrong &lt;img src=x onerror=alert(1)&gt;');
      expect(mail.parsed.attachments).toHaveLength(0);
    }
    expect(toSender.parsed.text).toContain(decliner.email);
    expect(toSender.parsed.replyTo?.value[0]?.address).toBe(decliner.email);
    // The decliner's address goes to the sender only.
    expect(toSigner.parsed.text).not.toContain(decliner.email);
    expect(toSigner.parsed.replyTo?.value[0]?.address).toBe(event.senderEmail);
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-declined')).toBe(0);
    expect(mailsTo(decliner.email)).toHaveLength(0);
    expect(mailsTo(bystander.email)).toHaveLength(0);
    expect(await deliveryRows(event.eventId)).toHaveLength(2);
  });

  it('tells each recipient in notify that the sender canceled and their link no longer works', async () => {
    const notify = [recipient('signer', 1, 'Ann Lee'), recipient('approver', 1, 'Landlord')];
    const event: TEnvelopeEndedEvent = { ...base(), notify };
    await docs.publish(EnvelopeCanceled, event, { msgId: event.eventId });
    for (const r of notify) {
      const mail = await waitForMail(r.email);
      expect(mail.parsed.subject).toBe('Canceled: lease.pdf');
      expect(mail.parsed.text).toContain(`Hello ${r.name},`);
      expect(mail.parsed.text).toContain(`${event.senderEmail} canceled "Please sign the lease"`);
      expect(mail.parsed.text).toContain('The link you received no longer works');
    }
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-canceled')).toBe(0);
    expect(mailsTo(event.senderEmail)).toHaveLength(0);
  });

  it('tells the sender the envelope expired, and who had not acted', async () => {
    const waiting = recipient('signer', 2, 'Slow Signer');
    const event: TEnvelopeEndedEvent = { ...base(), notify: [waiting] };
    await docs.publish(EnvelopeExpired, event, { msgId: event.eventId });
    const mail = await waitForMail(event.senderEmail);
    expect(mail.parsed.subject).toBe('Expired: lease.pdf');
    expect(mail.parsed.text).toContain('expired before every signer and approver had acted');
    expect(mail.parsed.text).toContain(`Still waiting on: Slow Signer (${waiting.email})`);
    expect(mail.parsed.text).toContain('Expired at: 2030-01-02 10:00 UTC');
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-expired')).toBe(0);
    expect(mailsTo(waiting.email)).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('keeps every envelope token out of the database and the logs', async () => {
    const tokens = smtp.messages.flatMap((m) =>
      [...(m.parsed.text ?? '').matchAll(/\/e\/([A-Za-z0-9_-]{43})/g)].map((x) => x[1] ?? ''),
    );
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    const [row] = await query<{ dump: string }>(
      "select coalesce(string_agg(d::text, E'\\n'), '') as dump from mailer.deliveries d",
    );
    const dump = row?.dump ?? '';
    expect(dump).toContain('envelope-turn');
    const logs = logLines.join('\n');
    expect(logs).toContain('email sent');
    for (const token of tokens) {
      expect(dump).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });
});

describe('one-time codes (requireEmailCode)', () => {
  const codeIn = (text: string): string => {
    const match = /^(\d{6})$/m.exec(text);
    if (!match?.[1]) throw new Error('no code in the email');
    return match[1];
  };

  it('sends the link, then the code in an email of its own; only the code hash goes to attach-link', async () => {
    const event = turn({ requireEmailCode: true });
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });

    await expect.poll(() => mailsTo(event.recipient.email).length, { timeout: 10_000 }).toBe(2);
    const [linkMail, codeMail] = mailsTo(event.recipient.email);
    expect(linkMail?.parsed.subject).toBe('Please sign the lease');
    const token = linkIn(linkMail?.parsed.text ?? '');
    expect(codeMail?.parsed.subject).toBe('Your code for Please sign the lease');
    const codeText = codeMail?.parsed.text ?? '';
    const codeHtml = String(codeMail?.parsed.html);
    const code = codeIn(codeText);
    expect(codeText).toContain('It works once, until 2030-01-02 10:10 UTC.');
    // No link of any kind in the code's email, nor the sender's message.
    expect(codeText).not.toMatch(/https?:\/\//);
    expect(codeHtml).not.toMatch(/<a\s|https?:\/\//);
    expect(codeText).not.toContain(token);
    expect(codeText).not.toContain('Thanks');
    // The link's email does not carry the code.
    expect(linkMail?.parsed.text ?? '').not.toContain(code);

    const [attach] = attached.filter((a) => a.recipientId === event.recipient.recipientId);
    expect(attach?.tokenHash).toBe(sha256(token));
    expect(attach?.codeHash).toBe(sha256(`${sha256(token)}:${code}`));
    await expect
      .poll(async () => (await deliveryRows(event.eventId)).map((r) => `${r.kind}:${r.state}`).sort())
      .toEqual(['envelope-code:sent', 'envelope-turn:sent']);
    // The code is in no table and no log line.
    const stored = await query<{ row: string }>(
      'select row_to_json(d)::text as row from mailer.deliveries d',
    );
    expect(stored.map((r) => r.row).join('\n')).not.toContain(code);
    expect(logLines.join('\n')).not.toContain(code);
  });

  it('retries a code email the SMTP server refused with a new code for the same link, sending the link once', async () => {
    const event = turn({ requireEmailCode: true });
    smtp.failNext(1, (mail) => mail.subject?.startsWith('Your code') === true);
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });

    await expect.poll(() => mailsTo(event.recipient.email).length, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => unackedMessages(docs, 'mailer-envelope-recipient-turn')).toBe(0);
    const [linkMail, codeMail] = mailsTo(event.recipient.email);
    expect(codeMail?.parsed.subject).toBe('Your code for Please sign the lease');
    const token = linkIn(linkMail?.parsed.text ?? '');
    const code = codeIn(codeMail?.parsed.text ?? '');
    // One link; the code that arrived was set on that link by the retry (the refused one was replaced).
    expect(attached.filter((a) => a.eventId === event.eventId)).toHaveLength(1);
    expect(codesSet.filter((c) => c.eventId === event.eventId)).toEqual([
      { tokenHash: sha256(token), codeHash: sha256(`${sha256(token)}:${code}`), eventId: event.eventId },
    ]);
    const rows = await deliveryRows(event.eventId);
    expect(rows.map((r) => [r.kind, r.state, r.attempts])).toEqual(
      expect.arrayContaining([
        ['envelope-turn', 'sent', 1],
        ['envelope-code', 'sent', 2],
      ]),
    );
    expect(rows.find((r) => r.kind === 'envelope-code')?.last_error).toContain('451');
    // Neither the code nor the token is in a table or a log line.
    const stored = await query<{ row: string }>(
      'select row_to_json(d)::text as row from mailer.deliveries d',
    );
    for (const secret of [code, token]) {
      expect(stored.map((r) => r.row).join('\n')).not.toContain(secret);
      expect(logLines.join('\n')).not.toContain(secret);
    }
  });

  it('sends no code to a recipient who needs none', async () => {
    const event = turn();
    await docs.publish(EnvelopeRecipientTurn, event, { msgId: event.eventId });
    await waitForMail(event.recipient.email);
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('sent');
    expect((await deliveryRows(event.eventId)).map((r) => r.kind)).toEqual(['envelope-turn']);
    expect(attached.find((a) => a.recipientId === event.recipient.recipientId)?.codeHash).toBeUndefined();
    expect(mailsTo(event.recipient.email)).toHaveLength(1);
  });

  it('answers a code request with a new code set on the same link, emailed without a link', async () => {
    const tokenHash = sha256(randomUUID());
    const event = { ...base(), recipient: recipient('approver'), tokenHash, expiresAt: EXPIRES_AT };
    await docs.publish(EnvelopeCodeRequested, event, { msgId: event.eventId });
    const mail = await waitForMail(event.recipient.email);
    expect(mail.parsed.subject).toBe('Your code for Please sign the lease');
    const code = codeIn(mail.parsed.text ?? '');
    expect(mail.parsed.text ?? '').not.toMatch(/https?:\/\//);
    expect(codesSet.filter((c) => c.tokenHash === tokenHash)).toEqual([
      { tokenHash, codeHash: sha256(`${tokenHash}:${code}`), eventId: event.eventId },
    ]);
    await expect.poll(async () => (await deliveryRows(event.eventId))[0]?.state).toBe('sent');
    expect(logLines.join('\n')).not.toContain(code);

    // A link that needs no code any more: nothing is sent, the email is recorded skipped.
    const verified = sha256(randomUUID());
    verifiedLinks.add(verified);
    const late = { ...base(), recipient: recipient('approver'), tokenHash: verified, expiresAt: EXPIRES_AT };
    await docs.publish(EnvelopeCodeRequested, late, { msgId: late.eventId });
    await expect.poll(async () => (await deliveryRows(late.eventId))[0]?.state).toBe('skipped');
    expect(mailsTo(late.recipient.email)).toEqual([]);
  });
});

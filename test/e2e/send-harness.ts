import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'nats';
import { inject, vi } from 'vitest';
import { readMailDirectory } from '@esign/testing';
import { auth, baseUrl, signForm } from './harness';

const stack = inject('stack');

type ParsedMail = Awaited<ReturnType<typeof readMailDirectory>>[number]['parsed'];

export interface Mail {
  file: string;
  raw: Buffer;
  parsed: ParsedMail;
  to: string[];
  subject: string;
  text: string;
}

const cache = new Map<string, { raw: Buffer; parsed: ParsedMail }>();

/** Every email the stack's mailer has sent so far (read from the e2e SMTP server's directory). */
export const allMail = async (): Promise<Mail[]> =>
  (await readMailDirectory(stack.mailDir, cache)).map(({ file, raw, parsed }) => {
    const to = (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((a) =>
      a.value.map((v) => (v.address ?? '').toLowerCase()),
    );
    return { file, raw, parsed, to, subject: parsed.subject ?? '', text: parsed.text ?? '' };
  });

/** Emails to `address` (optionally whose subject matches). */
export const mailTo = async (address: string, subject?: RegExp): Promise<Mail[]> =>
  (await allMail()).filter(
    (m) => m.to.includes(address.toLowerCase()) && (subject === undefined || subject.test(m.subject)),
  );

/** Waits until `count` emails to `address` (with a matching subject) have arrived. */
export const waitForMail = (
  address: string,
  subject?: RegExp,
  count = 1,
  timeoutMs = 20_000,
): Promise<Mail[]> =>
  vi.waitFor(
    async () => {
      const found = await mailTo(address, subject);
      if (found.length < count) {
        throw new Error(
          `${found.length} of ${count} emails to ${address} ${subject ?? ''} within ${timeoutMs} ms`,
        );
      }
      return found;
    },
    { timeout: timeoutMs, interval: 150 },
  );

/** The signing link in an email: `<gateway>/s/<token>`. */
export const linkIn = (mail: Mail | undefined): { url: string; token: string } => {
  if (!mail) throw new Error('no email');
  const match = /(https?:\/\/[^\s"<>]+\/s\/([A-Za-z0-9_-]{43}))/.exec(mail.text);
  if (!match?.[1] || !match[2]) throw new Error(`no signing link in: ${mail.text}`);
  return { url: match[1], token: match[2] };
};

/** Every line the stack's services printed so far. */
export const stackLog = (): Promise<string> => readFile(stack.logFile, 'utf8');

/** Moves document-store's signing clock `ms` ahead of real time (0: back to real time). */
export const setClockOffset = (ms: number): Promise<void> => writeFile(stack.clockFile, String(ms));

let n = 0;
/** A unique recipient address (emails are told apart by it). */
export const newRecipient = (): string => `recipient${Date.now()}${n++}@example.com`;

export interface SendInput {
  pdf: Buffer;
  fileName?: string;
  recipientEmail: string;
  recipientName?: string;
  fields?: Record<string, string | number | object>;
  headers?: Record<string, string>;
}

/** POST /api/v1/send. */
export const send = (apiKey: string, input: SendInput): Promise<Response> =>
  fetch(`${baseUrl}/api/v1/send`, {
    method: 'POST',
    headers: { ...auth(apiKey), ...input.headers },
    body: signForm({
      file: { bytes: input.pdf, name: input.fileName ?? 'contract.pdf', type: 'application/pdf' },
      fields: {
        recipientEmail: input.recipientEmail,
        recipientName: input.recipientName ?? 'Grace Hopper',
        ...input.fields,
      },
    }),
  });

export interface SendResult {
  sendId: string;
  auditId: string;
  recipientEmail: string;
  sentAt: string;
  status: string;
  expiresAt: string;
}

/** GET /api/v1/status?auditId=… */
export const statusOf = async (apiKey: string, id: string): Promise<Record<string, unknown>> => {
  const res = await fetch(`${baseUrl}/api/v1/status?auditId=${encodeURIComponent(id)}`, {
    headers: auth(apiKey),
  });
  if (res.status !== 200) throw new Error(`status answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

/** Polls the status until `predicate` holds. */
export const waitForStatus = async (
  apiKey: string,
  id: string,
  predicate: (status: Record<string, unknown>) => boolean,
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> => {
  // A status call that fails ends the wait at once (it is not retried as a status not yet reached).
  const outcome = await vi.waitFor(
    async () => {
      const reply = await statusOf(apiKey, id).then(
        (status) => ({ status }),
        (err: unknown) => ({ err }),
      );
      if ('status' in reply && !predicate(reply.status)) {
        throw new Error(`status still ${JSON.stringify(reply.status)}`);
      }
      return reply;
    },
    { timeout: timeoutMs, interval: 200 },
  );
  if ('err' in outcome) throw outcome.err;
  return outcome.status;
};

/** The page's JSON calls, as its script makes them (token in X-Signing-Token). */
export const pageCall = (
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> =>
  fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'X-Signing-Token': token,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json', Origin: baseUrl }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/**
 * Publishes the stored `events.signing.requested` of a request again, under a new message ID (so
 * JetStream does not drop it as a duplicate): to the mailer it is the same event delivered twice.
 */
export const republishRequestedEvent = async (sendId: string): Promise<boolean> => {
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const streamName = `${stack.busPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}EVENTS`;
    const subject = `${stack.busPrefix}events.signing.requested`;
    const info = await jsm.streams.info(streamName);
    for (let seq = info.state.last_seq; seq >= info.state.first_seq; seq--) {
      const message = await jsm.streams.getMessage(streamName, { seq }).catch(() => undefined);
      if (!message || message.subject !== subject) continue;
      const event = JSON.parse(new TextDecoder().decode(message.data)) as { sendId?: string };
      if (event.sendId !== sendId) continue;
      await nc.jetstream().publish(subject, message.data, { msgID: randomUUID() });
      return true;
    }
    return false;
  } finally {
    await nc.close();
  }
};

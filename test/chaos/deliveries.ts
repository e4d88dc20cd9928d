/**
 * Deliveries under a fault (issue 27: "outbox events and webhook and mail deliveries each exactly
 * once"). In a scenario that runs every service, the account gets a webhook endpoint for
 * `document.signed` (a receiver of the harness's own on 127.0.0.3), and one more client sends the PDF
 * for signing (`POST /api/v1/send`, a new recipient each time, its own Idempotency-Key) through the
 * burst. The audit: every send is answered 201, at once or when retried with its key; every recipient
 * got exactly one email (the mailer's consumer of `signing.requested`, through the outbox and
 * JetStream); every signed document's event reached the receiver exactly once (one delivery, one
 * webhook-id), and nothing else did.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@esign/bus';
import { WebhookCreate } from '@esign/contracts';
import type { SmtpCapture } from '@esign/testing';
import { startWebhookReceiver, type WebhookReceiver } from '@esign/testing';
import { multipart, post, type Answer, type Form } from './client';
import { retryWithinBudget, type RetryBudget } from './guards';

/** The loopback address the receiver listens on, and the only one the webhook service may reach. */
export const RECEIVER_NETWORK = '127.0.0.3/32';
/** Between two sends of the one sending client (after a failure: the burst's failure pause). */
const SEND_PAUSE_MS = 300;
/** How long the audit waits for the last email and webhook to arrive. */
const ARRIVAL_WAIT_MS = 60_000;

interface Send {
  readonly key: string;
  readonly recipient: string;
  readonly form: Form;
  answers: Answer[];
}

export interface DeliveryCounts {
  /** Sends made (each a new recipient), and how many ended 201. */
  readonly sends: number;
  readonly accepted: number;
  /** Emails to the sends' recipients. */
  readonly mails: number;
  /** Webhook deliveries the receiver got. */
  readonly webhooks: number;
}

export interface Deliveries {
  /** The sending client: sends until `more()` says stop; every answer is kept. */
  sendWhile(more: () => boolean, failurePauseMs: number, sleep: (ms: number) => Promise<void>): Promise<void>;
  /** Retry every send not answered 201 with its own key, within `budget`; returns those unresolved. */
  retryFailed(budget: RetryBudget, sleep: (ms: number) => Promise<void>): Promise<string[]>;
  /**
   * Counts the emails and webhooks (waiting up to a minute for the last to arrive) against the sends
   * and the signed documents' audit IDs, and lists what is not exactly once.
   */
  audit(
    signedAuditIds: readonly string[],
    unresolvedSends: readonly string[],
    sleep: (ms: number) => Promise<void>,
  ): Promise<{ counts: DeliveryCounts; problems: string[] }>;
  stop(): Promise<void>;
}

export const startDeliveries = async (options: {
  readonly bus: Bus;
  readonly accountId: string;
  readonly gatewayUrl: string;
  readonly apiKey: string;
  readonly pdf: Buffer;
  readonly smtp: SmtpCapture;
  readonly boundMs: number;
}): Promise<Deliveries> => {
  const { gatewayUrl, apiKey, smtp, boundMs } = options;
  const receiver: WebhookReceiver = await startWebhookReceiver();
  await options.bus.request(WebhookCreate, {
    accountId: options.accountId,
    url: receiver.url,
    eventTypes: ['document.signed'],
    description: 'chaos audit',
  });
  const runId = randomUUID().slice(0, 8);
  const sends: Send[] = [];
  const sendOnce = async (send: Send) => {
    const a = await post(gatewayUrl, apiKey, send.form, send.key, boundMs, '/api/v1/send');
    send.answers.push(a);
    return a;
  };
  const accepted = (s: Send) => s.answers.some((a) => a.status === 201);

  /** Every email's recipients (the SMTP envelope's RCPT TO), lower-cased. */
  const mailsTo = () => {
    const by = new Map<string, number>();
    for (const m of smtp.messages)
      for (const to of m.envelope.to) by.set(to.toLowerCase(), (by.get(to.toLowerCase()) ?? 0) + 1);
    return by;
  };
  /** The receiver's document.signed deliveries, by audit ID and by webhook-id. */
  const webhooks = () => {
    const byAudit = new Map<string, number>();
    const byId = new Map<string, number>();
    for (const r of receiver.received) {
      const id = String(r.headers['webhook-id'] ?? '');
      byId.set(id, (byId.get(id) ?? 0) + 1);
      let auditId = '(unreadable body)';
      try {
        const body = JSON.parse(r.body) as { type?: string; data?: { auditId?: string } };
        auditId =
          body.type === 'document.signed' ? (body.data?.auditId ?? '(none)') : `(${body.type ?? '?'})`;
      } catch {
        // counted under '(unreadable body)'
      }
      byAudit.set(auditId, (byAudit.get(auditId) ?? 0) + 1);
    }
    return { byAudit, byId };
  };

  return {
    async sendWhile(more, failurePauseMs, sleep) {
      while (more()) {
        const recipient = `send-${runId}-${sends.length}@example.com`;
        const send: Send = {
          key: randomUUID(),
          recipient,
          form: multipart(options.pdf, { recipientEmail: recipient, recipientName: 'Chaos Recipient' }),
          answers: [],
        };
        sends.push(send);
        const a = await sendOnce(send);
        await sleep(a.status === 201 ? SEND_PAUSE_MS : failurePauseMs);
      }
    },

    async retryFailed(budget, sleep) {
      const { unresolved } = await retryWithinBudget(
        sends.filter((s) => !accepted(s)).map((s) => s.key),
        async (key) => {
          const send = sends.find((s) => s.key === key);
          if (!send) throw new Error(`no send under ${key}`);
          const a = await sendOnce(send);
          const wait = Number(a.retryAfter ?? '1');
          return { value: a, done: a.status === 201, waitMs: (Number.isFinite(wait) ? wait : 1) * 1000 };
        },
        budget,
        sleep,
      );
      return unresolved;
    },

    async audit(signedAuditIds, unresolvedSends, sleep) {
      const problems: string[] = [];
      const unresolved = new Set(unresolvedSends);
      for (const send of sends) {
        for (const a of send.answers) {
          if (a.status === 201 || a.status === 'reset') continue;
          if (a.status === 'hang') problems.push(`send ${send.key}: ${a.error ?? 'hang'}`);
          else if (a.status !== 503 && a.status !== 429)
            problems.push(`send ${send.key}: answered ${a.status} ${a.error ?? ''}`);
          else if (!a.retryAfter) problems.push(`send ${send.key}: ${a.status} without Retry-After`);
        }
        if (!accepted(send) && !unresolved.has(send.key))
          problems.push(`send ${send.key}: never answered 201 (last ${send.answers.at(-1)?.status ?? '-'})`);
      }
      const expectedMail = sends.filter(accepted);
      const signed = new Set(signedAuditIds);
      // Wait for the last to arrive (a redelivery after a fault waits its delay).
      for (
        const deadline = performance.now() + ARRIVAL_WAIT_MS;
        performance.now() < deadline;
        await sleep(500)
      ) {
        const mails = mailsTo();
        const { byAudit } = webhooks();
        if (
          expectedMail.every((s) => (mails.get(s.recipient) ?? 0) >= 1) &&
          signedAuditIds.every((id) => (byAudit.get(id) ?? 0) >= 1)
        )
          break;
      }
      const mails = mailsTo();
      const mailProblems = sends.filter((s) => {
        const n = mails.get(s.recipient) ?? 0;
        // A send never answered 201 (its retries ran out) may have made its request or not: 0 or 1.
        return accepted(s) ? n !== 1 : n > 1;
      });
      for (const s of mailProblems.slice(0, 5))
        problems.push(`send ${s.key}: ${mails.get(s.recipient) ?? 0} emails to ${s.recipient}, not 1`);
      if (mailProblems.length > 5)
        problems.push(`… and ${mailProblems.length - 5} more sends emailed not once`);
      const { byAudit, byId } = webhooks();
      const notOnce = signedAuditIds.filter((id) => byAudit.get(id) !== 1);
      if (notOnce.length > 0)
        problems.push(
          `${notOnce.length} signed document(s) not delivered to the webhook exactly once (first: ${notOnce[0]} ×${byAudit.get(notOnce[0] ?? '') ?? 0})`,
        );
      const stray = [...byAudit.keys()].filter((id) => !signed.has(id));
      if (stray.length > 0)
        problems.push(`webhook deliveries for no signed document: ${stray.slice(0, 3).join(', ')}`);
      const repeated = [...byId.values()].filter((n) => n > 1).length;
      if (repeated > 0) problems.push(`${repeated} webhook-id(s) delivered more than once`);
      const sentTo = new Set(sends.map((s) => s.recipient));
      return {
        counts: {
          sends: sends.length,
          accepted: expectedMail.length,
          mails: [...mails].filter(([to]) => sentTo.has(to)).reduce((n, [, c]) => n + c, 0),
          webhooks: receiver.received.length,
        },
        problems,
      };
    },

    stop: () => receiver.close(),
  };
};

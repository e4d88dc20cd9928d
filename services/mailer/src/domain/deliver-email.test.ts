import { describe, expect, it } from 'vitest';
import { createLogger } from '@esign/telemetry';
import type { MailTransport } from '../adapters/smtp-transport';
import type { DeliveryRepository } from '../db/delivery-repository';
import { deliverEmail } from './deliver-email';
import type { MailOutcomes } from './mail-outcomes';

const key = {
  eventId: 'e1',
  kind: 'signing-request',
  recipient: 'ada@example.com',
  sendId: 's1',
  auditId: 'a1',
};
const down = () => new Error('Connection terminated unexpectedly');

/** A delivery log whose markSent fails with `markSentErrors` in turn, and an SMTP transport that counts. */
const world = (markSentErrors: Error[], options: { sendError?: Error; markFailedErrors?: Error[] } = {}) => {
  const calls = { sent: 0, markSent: 0, markFailed: 0 };
  const waits: number[] = [];
  let now = 0;
  const deliveries: DeliveryRepository = {
    claim: () => Promise.resolve({ claimed: true, id: 'd1', attempts: 1 }),
    markSent: () => {
      calls.markSent += 1;
      const err = markSentErrors.shift();
      return err ? Promise.reject(err) : Promise.resolve();
    },
    markFailed: () => {
      calls.markFailed += 1;
      const err = options.markFailedErrors?.shift();
      return err ? Promise.reject(err) : Promise.resolve();
    },
    markSkipped: () => Promise.resolve(),
    linkTokenHashOf: () => Promise.resolve(undefined),
  };
  const transport = {
    send: () => {
      calls.sent += 1;
      return options.sendError
        ? Promise.reject(options.sendError)
        : Promise.resolve({ messageId: '<m1@example.com>' });
    },
  } as unknown as MailTransport;
  const outcomes: MailOutcomes = { sent: () => undefined, notSent: () => undefined, failed: () => undefined };
  const deps = {
    deliveries,
    transport,
    outcomes,
    logger: createLogger({ service: 'mailer-test', level: 'error', write: () => undefined }),
    recordRetry: {
      sleep: (ms: number) => {
        waits.push(ms);
        now += ms;
        return Promise.resolve();
      },
      now: () => now,
    },
  };
  const deliver = () =>
    deliverEmail(deps, {
      key,
      compose: () =>
        Promise.resolve({ to: key.recipient, subject: 'Please sign', text: 'x', html: '<p>x</p>' } as never),
      attempt: { deliveryCount: 1, publishedAt: new Date() },
    });
  return { calls, waits, deliver };
};

describe('deliverEmail, once SMTP has taken the email', () => {
  it('records it as sent when the database is back, and never as failed', async () => {
    const w = world([down(), down()]);
    await expect(w.deliver()).resolves.toBe('sent');
    expect(w.calls).toEqual({ sent: 1, markSent: 3, markFailed: 0 });
    expect(w.waits).toEqual([100, 200]);
  });

  it('leaves it `sending` (its lease keeps redeliveries off it) when the database stays away', async () => {
    const w = world(Array.from({ length: 1000 }, down));
    await expect(w.deliver()).rejects.toThrow(/Connection terminated/);
    // Sent once, never marked failed: a failed email would be sent again by the redelivery.
    expect(w.calls.sent).toBe(1);
    expect(w.calls.markFailed).toBe(0);
    // It tried for a minute, then gave up.
    expect(w.waits.reduce((a, b) => a + b, 0)).toBeGreaterThan(55_000);
  });

  it('records a failed attempt once the database is back, so the redelivery may try again', async () => {
    const smtp = new Error('451 try again later');
    const w = world([], { sendError: smtp, markFailedErrors: [down(), down()] });
    await expect(w.deliver()).rejects.toBe(smtp);
    // Without this the email stayed `sending` and every redelivery waited out its 5-minute lease.
    expect(w.calls).toEqual({ sent: 1, markSent: 0, markFailed: 3 });
  });
});

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../config';
import { nextAttemptAt } from './backoff';
import { createSecretBox } from './secret-box';
import { newWebhookSecret, signWebhook } from './signature';

describe('Standard Webhooks signatures', () => {
  it('verify with the standardwebhooks package, with either secret during a rotation', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ id: 'evt_1', type: 'document.signed', data: {} });
    const ts = Math.floor(Date.now() / 1000);
    const signature = signWebhook([current, previous], 'evt_1', ts, body);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signature,
    };
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('secrets at rest', () => {
  const box = createSecretBox(Buffer.alloc(32, 7).toString('base64'));
  it('seals with AES-256-GCM bound to the endpoint', () => {
    const secret = newWebhookSecret();
    const sealed = box.seal(secret, 'wh_a');
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.open(sealed, 'wh_a')).toBe(secret);
    expect(() => box.open(sealed, 'wh_b')).toThrow();
    expect(() => createSecretBox(Buffer.alloc(32, 8).toString('base64')).open(sealed, 'wh_a')).toThrow();
  });
});

describe('the retry schedule', () => {
  it('spreads eleven attempts over about three days, with jitter', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeGreaterThan(65);
    expect(total / 3_600_000).toBeLessThan(80);
    const now = new Date(0);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 1, now, () => 0)?.getTime()).toBe(4000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 1, now, () => 1)?.getTime()).toBe(6000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_SCHEDULE_MS.length + 1, now)).toBeNull();
  });
});

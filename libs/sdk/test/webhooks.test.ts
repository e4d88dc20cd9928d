import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError as ReferenceVerificationError } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

/**
 * The Standard Webhooks test vectors (the reference libraries' tests, JavaScript and Python):
 * one secret, message id and payload, and one signature with a known value at a fixed time.
 */
const VECTOR = {
  secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  payload: '{"test": 2432232314}',
  timestamp: 1614265330,
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  /** A well-formed signature of something else. */
  other: 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
} as const;
const TOLERANCE_SECONDS = 5 * 60;

/** The vector's headers, signed at `timestamp` (seconds) as the reference libraries' tests do. */
const signedAt = (timestamp: number, payload: string = VECTOR.payload) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': `v1,${createHmac('sha256', Buffer.from(VECTOR.secret, 'base64'))
    .update(`${VECTOR.id}.${timestamp}.${payload}`)
    .digest('base64')}`,
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('verifyWebhook, on the Standard Webhooks test vectors', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(VECTOR.timestamp * 1000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const headers = (signature: string = VECTOR.signature) => ({
    'webhook-id': VECTOR.id,
    'webhook-timestamp': String(VECTOR.timestamp),
    'webhook-signature': signature,
  });

  it('accepts the vector signature and answers the parsed payload', () => {
    expect(verifyWebhook(VECTOR.payload, headers(), `whsec_${VECTOR.secret}`)).toEqual({ test: 2432232314 });
  });

  it('accepts the secret with and without its whsec_ prefix', () => {
    expect(verifyWebhook(VECTOR.payload, headers(), VECTOR.secret)).toEqual({ test: 2432232314 });
  });

  it('accepts the body as bytes', () => {
    expect(verifyWebhook(Buffer.from(VECTOR.payload), headers(), VECTOR.secret)).toEqual({
      test: 2432232314,
    });
    const inner = new Uint8Array([0, 0, ...Buffer.from(VECTOR.payload), 0]).subarray(2, -1);
    expect(verifyWebhook(inner, headers(), VECTOR.secret)).toEqual({ test: 2432232314 });
  });

  it('accepts a header list with one valid v1 signature among others and other versions', () => {
    const signatures = [VECTOR.other, VECTOR.other.replace('v1,', 'v2,'), VECTOR.signature, VECTOR.other];
    expect(verifyWebhook(VECTOR.payload, headers(signatures.join(' ')), VECTOR.secret)).toEqual({
      test: 2432232314,
    });
  });

  it('reads headers from a fetch Headers and from a Node-style object with any case or arrays', () => {
    expect(verifyWebhook(VECTOR.payload, new Headers(headers()), VECTOR.secret)).toEqual({
      test: 2432232314,
    });
    const node = {
      'Webhook-Id': VECTOR.id,
      'WEBHOOK-TIMESTAMP': [String(VECTOR.timestamp)],
      'webhook-signature': VECTOR.signature,
    };
    expect(verifyWebhook(VECTOR.payload, node, VECTOR.secret)).toEqual({ test: 2432232314 });
  });

  it.each([
    ['another signature', VECTOR.other],
    ['the vector with its last character changed', VECTOR.signature.replace('OE=', 'OA=')],
    ['a signature that is not base64 of the right length', 'v1,dawfeoifkpqwoekfpqoekf'],
    ['a partial signature', VECTOR.signature.slice(0, 8)],
    ['an empty v1 signature', 'v1,'],
    ['the right signature under another version', VECTOR.signature.replace('v1,', 'v2,')],
    ['the right signature without a version', VECTOR.signature.slice(3)],
  ])('refuses %s', (_, signature) => {
    expect(() => verifyWebhook(VECTOR.payload, headers(signature), VECTOR.secret)).toThrow(
      new WebhookVerificationError('No matching signature found'),
    );
  });

  it('refuses a body that differs from the signed one, even by whitespace', () => {
    expect(() => verifyWebhook('{"test":2432232314}', headers(), VECTOR.secret)).toThrow(
      WebhookVerificationError,
    );
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const)(
    'refuses a webhook without %s, or with it empty',
    (name) => {
      const { [name]: _, ...without } = headers();
      const missing = new WebhookVerificationError('Missing required headers');
      expect(() => verifyWebhook(VECTOR.payload, without, VECTOR.secret)).toThrow(missing);
      expect(() => verifyWebhook(VECTOR.payload, { ...headers(), [name]: '' }, VECTOR.secret)).toThrow(
        missing,
      );
    },
  );

  it('refuses a timestamp that is not a number', () => {
    expect(() =>
      verifyWebhook(VECTOR.payload, { ...headers(), 'webhook-timestamp': 'hello' }, VECTOR.secret),
    ).toThrow(new WebhookVerificationError('Invalid Signature Headers'));
  });

  it('throws a WebhookVerificationError, an Error named for what it is', () => {
    let thrown: unknown;
    try {
      verifyWebhook(VECTOR.payload, headers(VECTOR.other), VECTOR.secret);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(WebhookVerificationError);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ name: 'WebhookVerificationError' });
  });
});

describe('verifyWebhook, on the timestamp', () => {
  it('accepts a timestamp up to 5 minutes old or ahead', () => {
    for (const offset of [-TOLERANCE_SECONDS + 1, 0, TOLERANCE_SECONDS - 1]) {
      expect(verifyWebhook(VECTOR.payload, signedAt(nowSeconds() + offset), VECTOR.secret)).toEqual({
        test: 2432232314,
      });
    }
  });

  it('refuses a timestamp more than 5 minutes old, however well signed', () => {
    expect(() =>
      verifyWebhook(VECTOR.payload, signedAt(nowSeconds() - TOLERANCE_SECONDS - 1), VECTOR.secret),
    ).toThrow(new WebhookVerificationError('Message timestamp too old'));
  });

  it('refuses a timestamp more than 5 minutes ahead, however well signed', () => {
    expect(() =>
      verifyWebhook(VECTOR.payload, signedAt(nowSeconds() + TOLERANCE_SECONDS + 1), VECTOR.secret),
    ).toThrow(new WebhookVerificationError('Message timestamp too new'));
  });
});

describe('verifyWebhook, on the secret', () => {
  const valid = signedAt(nowSeconds());

  it.each([
    ['empty', ''],
    ['only the prefix', 'whsec_'],
  ])('throws a plain Error for a secret that is %s', (_, secret) => {
    const thrown = (() => {
      try {
        verifyWebhook(VECTOR.payload, valid, secret);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(thrown).toEqual(new Error("Secret can't be empty."));
    expect(thrown).not.toBeInstanceOf(WebhookVerificationError);
  });

  it.each([
    ['not base64', 'whsec_not base64!'],
    ['url-safe base64', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw-_'],
    ['shorter than one base64 quantum', 'whsec_Mf'],
  ])('throws a plain Error for a secret that is %s, as the reference library does', (_, secret) => {
    expect(() => verifyWebhook(VECTOR.payload, valid, secret)).toThrow(Error);
    expect(() => verifyWebhook(VECTOR.payload, valid, secret)).not.toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret)).toThrow(Error);
  });

  it('checks the secret before the headers, as the reference library does', () => {
    expect(() => verifyWebhook(VECTOR.payload, {}, '')).toThrow("Secret can't be empty.");
  });
});

describe('verifyWebhook and the standardwebhooks package', () => {
  // The clock stands still: a case 301 s ahead is 300 s ahead, inside the tolerance, if a second
  // ticks between signing it and the package reading the time (it did once, in CI under load).
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1, 12));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const bodies = [
    JSON.stringify({ id: 'evt_1', type: 'webhook.test', timestamp: '2026-01-01T00:00:00.000Z', data: {} }),
    JSON.stringify({ id: 'evt_2', type: 'document.signed', data: { signer: 'Zoë Ñúñez — 署名 ✓' } }),
  ];

  it('verifies what the package signs, given as text or bytes', () => {
    const reference = new Webhook(secret);
    for (const body of bodies) {
      const id = `msg_${body.length}`;
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(nowSeconds()),
        'webhook-signature': reference.sign(id, new Date(), body),
      };
      expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
      expect(verifyWebhook(Buffer.from(body), headers, secret)).toEqual(JSON.parse(body));
    }
  });

  it('makes signatures the package verifies: both compute the same HMAC', () => {
    const reference = new Webhook(secret);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    for (const body of bodies) {
      const timestamp = nowSeconds();
      const headers = {
        'webhook-id': 'msg_ours',
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${createHmac('sha256', key).update(`msg_ours.${timestamp}.${body}`).digest('base64')}`,
      };
      expect(reference.verify(body, headers)).toEqual(verifyWebhook(body, headers, secret));
    }
  });

  it('agrees with the package on every failure the vectors cover', () => {
    const reference = new Webhook(VECTOR.secret);
    const good = signedAt(nowSeconds());
    const cases: Record<string, string>[] = [
      { ...good, 'webhook-signature': VECTOR.other },
      { ...good, 'webhook-signature': 'v1,' },
      { ...good, 'webhook-id': '' },
      { ...good, 'webhook-timestamp': 'hello' },
      signedAt(nowSeconds() - TOLERANCE_SECONDS - 1),
      signedAt(nowSeconds() + TOLERANCE_SECONDS + 1),
    ];
    for (const headers of cases) {
      let expected: unknown;
      try {
        reference.verify(VECTOR.payload, headers);
      } catch (err) {
        expected = err;
      }
      expect(expected).toBeInstanceOf(ReferenceVerificationError);
      expect(() => verifyWebhook(VECTOR.payload, headers, VECTOR.secret)).toThrow(
        new WebhookVerificationError((expected as Error).message),
      );
    }
  });
});

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { KV } from '@esign/bus';
import { ServiceError } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';

/**
 * How an operation honours an `Idempotency-Key` header:
 * - `domain`: its handler passes the key to its domain, which remembers it with what it made (sign,
 *   send, envelopes: document-store keeps the key with the document, request or envelope, for good);
 * - `replay`: the operation layer does it (`IdempotencyStore`): the first request's 2xx JSON answer is
 *   kept 24 hours and a retry with the same key and the same request gets it again without running
 *   the handler.
 */
export type IdempotencyMode = 'domain' | 'replay';

/** How long the operation layer keeps a key and its answer (from the answer). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** The JetStream key-value bucket of the operation layer's keys (shared by every gateway replica). */
export const IDEMPOTENCY_BUCKET = 'idempotency';

/**
 * A claim older than this, still without an answer, was left by a gateway that stopped mid-request:
 * a retry takes it over instead of being told "in progress" until the key expires.
 */
export const ABANDONED_CLAIM_MS = 10 * 60_000;

/** A 2xx JSON answer as it went out: what a retry with the same key gets again. */
export interface StoredAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/** One request under an `Idempotency-Key`. */
export interface IdempotentRequest {
  /** Whose key it is: the account (its API key's or its dashboard session's). */
  readonly accountId: string;
  readonly operationId: string;
  readonly key: string;
  /** What makes a retry the same request (`requestFingerprint`). */
  readonly fingerprint: string;
}

export type IdempotentOutcome<R> =
  | { readonly replayed: true; readonly answer: StoredAnswer }
  | { readonly replayed: false; readonly result: R };

export interface IdempotencyStore {
  /**
   * Run `run` once for the request's (account, operation, key): the first request claims the key
   * (atomically, across replicas) and runs; once it answered, a retry with the same fingerprint gets
   * the stored answer (`replayed`) and does not run. `storable` says what of a result is kept: an
   * answer that is not storable (not 2xx JSON) and a failure release the key, so a retry runs again.
   * `conflict` on `Idempotency-Key` when the key was used for another request, or its first request
   * is still running.
   */
  once<R>(
    request: IdempotentRequest,
    run: () => Promise<R>,
    storable: (result: R) => StoredAnswer | undefined,
  ): Promise<IdempotentOutcome<R>>;
}

/**
 * An entry of the bucket. The answer is sealed (AES-256-GCM, base64 of IV, tag and ciphertext) with a
 * key derived from the Idempotency-Key: answers hold secrets shown once (an API key, a webhook
 * secret), which the bucket must not give to whoever reads it without the key the client chose.
 */
type StoredRecord =
  | { readonly state: 'running'; readonly fingerprint: string; readonly startedAt: number }
  | { readonly state: 'done'; readonly fingerprint: string; readonly sealed: string };

/** JSON with object keys sorted, so the same value always gives the same text. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, canonical(v)]),
  );
};

/**
 * What makes two requests the same request: the method, the operation's path and its parameters, the
 * query and the body as parsed. Headers (other than the key itself) do not count: a retry may carry
 * another date, trace or user agent.
 */
export const requestFingerprint = (request: {
  readonly method: string;
  readonly path: string;
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        canonical([request.method.toUpperCase(), request.path, request.params, request.query, request.body]),
      ),
    )
    .digest('hex');

/** The entry's key: KV keys take few characters, so (account, operation, key) hashed. */
const entryKey = (request: IdempotentRequest): string =>
  createHash('sha256')
    .update(JSON.stringify([request.accountId, request.operationId, request.key]))
    .digest('hex');

const answerKey = (request: IdempotentRequest): Buffer =>
  Buffer.from(
    hkdfSync(
      'sha256',
      request.key,
      `${request.accountId}\n${request.operationId}`,
      'esign gateway idempotency answer',
      32,
    ),
  );

const seal = (request: IdempotentRequest, answer: StoredAnswer): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', answerKey(request), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
};

const unseal = (request: IdempotentRequest, sealed: string): StoredAnswer => {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', answerKey(request), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  return JSON.parse(text) as StoredAnswer;
};

const encode = (record: StoredRecord): Uint8Array => new TextEncoder().encode(JSON.stringify(record));
const decode = (data: Uint8Array): StoredRecord => JSON.parse(new TextDecoder().decode(data)) as StoredRecord;

/** 10071: the key's last revision is not the one expected (here: it exists already). */
const isWrongRevision = (err: unknown): boolean =>
  (err as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code === 10071;

const usedForAnother = () =>
  new ServiceError(
    'conflict',
    'Idempotency-Key was already used for a different request (within the last 24 hours)',
    'Idempotency-Key',
  );

const stillRunning = () =>
  new ServiceError(
    'conflict',
    'A request with this Idempotency-Key is still in progress; retry once it has answered',
    'Idempotency-Key',
  );

/** The operation layer's idempotency keys in a JetStream key-value bucket (`Bus.keyValue`). */
export const createIdempotencyStore = (options: {
  readonly kv: KV;
  readonly logger: Logger;
  readonly abandonedAfterMs?: number;
}): IdempotencyStore => {
  const { kv, logger } = options;
  const abandonedAfterMs = options.abandonedAfterMs ?? ABANDONED_CLAIM_MS;

  /** The revision of our claim, or the answer to replay. */
  const claim = async (
    id: string,
    request: IdempotentRequest,
  ): Promise<{ revision: number } | { answer: StoredAnswer }> => {
    const { fingerprint } = request;
    const running = () => encode({ state: 'running', fingerprint, startedAt: Date.now() });
    // Twice at most: the entry found may be deleted (its first request failed) before we read it.
    for (let attempt = 0; ; attempt += 1) {
      try {
        return { revision: await kv.create(id, running()) };
      } catch (err) {
        if (!isWrongRevision(err)) throw err;
        // Claimed again by another request between our two attempts.
        if (attempt > 0) throw stillRunning();
      }
      const entry = await kv.get(id);
      if (!entry || entry.operation !== 'PUT') continue;
      const record = decode(entry.value);
      if (record.fingerprint !== fingerprint) throw usedForAnother();
      if (record.state === 'done') return { answer: unseal(request, record.sealed) };
      if (Date.now() - record.startedAt < abandonedAfterMs) throw stillRunning();
      try {
        // Left by a gateway that stopped mid-request: ours now, unless another retry took it first.
        return { revision: await kv.update(id, running(), entry.revision) };
      } catch (err) {
        if (isWrongRevision(err)) throw stillRunning();
        throw err;
      }
    }
  };

  const release = async (id: string, revision: number): Promise<void> => {
    try {
      await kv.delete(id, { previousSeq: revision });
    } catch (err) {
      // Left as it is, the claim is taken over once abandoned (ABANDONED_CLAIM_MS).
      logger.warn('could not release an idempotency key', { err });
    }
  };

  return {
    async once<R>(
      request: IdempotentRequest,
      run: () => Promise<R>,
      storable: (result: R) => StoredAnswer | undefined,
    ): Promise<IdempotentOutcome<R>> {
      const id = entryKey(request);
      const claimed = await claim(id, request).catch((err: unknown) => {
        if (err instanceof ServiceError) throw err;
        // NATS or JetStream did not answer: nothing was done, the client retries with the same key.
        logger.warn('the idempotency store did not answer', { operation: request.operationId, err });
        throw new ServiceError(
          'unavailable',
          'the idempotency store is unavailable; retry with the same key',
        );
      });
      if ('answer' in claimed) return { replayed: true, answer: claimed.answer };
      let result: R;
      let answer: StoredAnswer | undefined;
      try {
        result = await run();
        answer = storable(result);
      } catch (err) {
        await release(id, claimed.revision);
        throw err;
      }
      if (!answer) {
        await release(id, claimed.revision);
        return { replayed: false, result };
      }
      try {
        await kv.update(
          id,
          encode({ state: 'done', fingerprint: request.fingerprint, sealed: seal(request, answer) }),
          claimed.revision,
        );
      } catch (err) {
        // The work is done and answered; a retry meets the claim ("in progress") until it is abandoned.
        logger.warn('could not store the answer of an idempotent request', {
          operation: request.operationId,
          err,
        });
      }
      return { replayed: false, result };
    },
  };
};

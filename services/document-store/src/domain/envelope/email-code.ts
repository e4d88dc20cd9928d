import { createHash, timingSafeEqual } from 'node:crypto';
import {
  EMAIL_CODE_MAX_ATTEMPTS,
  EMAIL_CODE_MAX_REQUESTS,
  EMAIL_CODE_REQUEST_WINDOW_MS,
  EMAIL_CODE_TTL_MS,
  EnvelopeCodeRequested,
  ServiceError,
  type EnvelopeRequestCode,
  type EnvelopeSetCode,
  type EnvelopeVerifyCode,
} from '@esign/contracts';
import type { z } from 'zod';
import { appendStory, updateLinkCode } from '../../db/envelope-repository';
import { inTransaction, insertOutbox, type Queryable } from '../../db/signing-repository';
import {
  codeRequired,
  envelopeEvent,
  eventRecipient,
  findByLink,
  requireCanAct,
  type EnvelopeDeps,
  type TLinkTarget,
} from './envelope-deps';

/**
 * One-time email codes of `requireEmailCode` recipients, kept per link: the hash of the current code
 * (SHA-256 hex of `<tokenHash>:<code>`, made by the mailer, which alone sees the code), when it stops
 * working, its wrong tries, when it was verified, and the rate limit of new codes. Every change holds
 * the envelope's row, as every other change of an envelope, so two tries at once count as two.
 */

/** The hash a code is kept as: SHA-256 hex of `<tokenHash>:<code>` (the mailer makes it the same way). */
export const envelopeCodeHash = (tokenHash: string, code: string): string =>
  createHash('sha256').update(`${tokenHash}:${code}`).digest('hex');

const sameHash = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

/**
 * The link's recipient who may act and whose link needs its code, the envelope locked; the link read
 * under that lock (its code columns change only under it).
 */
const findCodeTarget = async (client: Queryable, tokenHash: string, now: Date): Promise<TLinkTarget> => {
  const target = await findByLink(client, tokenHash, now, { lock: true });
  requireCanAct(target, now, ['signer', 'approver']);
  if (!codeRequired(target.link, target.recipient)) {
    throw new ServiceError('conflict', 'this link needs no code', 'code');
  }
  return target;
};

/** `envelope.verify-code`: see the contract. Wrong tries and the verification are in the story. */
export const verifyEnvelopeCode = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeVerifyCode)['request']>,
): Promise<z.infer<(typeof EnvelopeVerifyCode)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient, link } = await findCodeTarget(client, request.tokenHash, now);
    if (link.codeAttempts >= EMAIL_CODE_MAX_ATTEMPTS) return { outcome: 'locked' as const };
    if (!link.codeHash || !link.codeExpiresAt || link.codeExpiresAt.getTime() <= now.getTime()) {
      return { outcome: 'expired' as const };
    }
    const story = (event: string, details: Record<string, unknown>) =>
      appendStory(client, aggregate.envelope.id, [
        {
          recipientId: recipient.id,
          event,
          at: now,
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
          details: {
            recipientId: recipient.id,
            ipAddress: request.ipAddress,
            userAgent: request.userAgent,
            ...details,
          },
        },
      ]);
    if (!sameHash(envelopeCodeHash(request.tokenHash, request.code), link.codeHash)) {
      const attempts = link.codeAttempts + 1;
      await updateLinkCode(client, link.tokenHash, { code_attempts: attempts });
      await story('code-wrong', { attempt: attempts });
      const attemptsLeft = EMAIL_CODE_MAX_ATTEMPTS - attempts;
      return attemptsLeft > 0 ? { outcome: 'wrong' as const, attemptsLeft } : { outcome: 'locked' as const };
    }
    await updateLinkCode(client, link.tokenHash, { code_verified_at: now, code_hash: null });
    await story('code-verified', {});
    return { outcome: 'verified' as const, verifiedAt: now.toISOString() };
  });
};

/**
 * `envelope.request-code`: queue a new code for the link (`events.envelope.code-requested`), at most
 * `EMAIL_CODE_MAX_REQUESTS` in a window of `EMAIL_CODE_REQUEST_WINDOW_MS` that starts at the first
 * request (`rate_limited` beyond).
 */
export const requestEnvelopeCode = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeRequestCode)['request']>,
): Promise<z.infer<(typeof EnvelopeRequestCode)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient, link } = await findCodeTarget(client, request.tokenHash, now);
    const windowOpen =
      link.codeWindowStart !== null &&
      now.getTime() - link.codeWindowStart.getTime() < EMAIL_CODE_REQUEST_WINDOW_MS;
    const requests = windowOpen ? link.codeRequests : 0;
    if (requests >= EMAIL_CODE_MAX_REQUESTS) {
      throw new ServiceError(
        'rate_limited',
        'too many new codes were asked for: try again within the hour',
        'code',
      );
    }
    await updateLinkCode(client, link.tokenHash, {
      code_requests: requests + 1,
      code_window_start: windowOpen ? link.codeWindowStart : now,
    });
    const { envelope } = aggregate;
    await insertOutbox(
      client,
      envelopeEvent(EnvelopeCodeRequested.subject, envelope, now, {
        recipient: eventRecipient(recipient),
        tokenHash: link.tokenHash,
        expiresAt: envelope.expiresAt.toISOString(),
      }),
    );
    await appendStory(client, envelope.id, [
      {
        recipientId: recipient.id,
        event: 'code-requested',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: { recipientId: recipient.id, request: requests + 1 },
      },
    ]);
    return {
      envelopeId: envelope.id,
      recipientId: recipient.id,
      requestsLeft: EMAIL_CODE_MAX_REQUESTS - requests - 1,
    };
  });
};

/** `envelope.set-code`: the mailer's new code for a link replaces the old one; its tries start again. */
export const setEnvelopeCode = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeSetCode)['request']>,
): Promise<z.infer<(typeof EnvelopeSetCode)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient, link } = await findCodeTarget(client, request.tokenHash, now);
    const codeExpiresAt = new Date(now.getTime() + EMAIL_CODE_TTL_MS);
    await updateLinkCode(client, link.tokenHash, {
      code_hash: request.codeHash,
      code_expires_at: codeExpiresAt,
      code_attempts: 0,
    });
    await appendStory(client, aggregate.envelope.id, [
      {
        recipientId: recipient.id,
        event: 'code-issued',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: { recipientId: recipient.id, eventId: request.eventId },
      },
    ]);
    return {
      envelopeId: aggregate.envelope.id,
      recipientId: recipient.id,
      codeExpiresAt: codeExpiresAt.toISOString(),
    };
  });
};

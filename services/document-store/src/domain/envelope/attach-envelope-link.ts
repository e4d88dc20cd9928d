import { EMAIL_CODE_TTL_MS, ServiceError, type EnvelopeAttachLink } from '@esign/contracts';
import type { z } from 'zod';
import {
  appendStory,
  findEventRecipientEmail,
  insertLink,
  lockRecipientEnvelope,
  revokeLinks,
} from '../../db/envelope-repository';
import { inTransaction } from '../../db/signing-repository';
import { notFound, refuseForSend, requireCanAct, type EnvelopeDeps } from './envelope-deps';

/** How long an embedded link opens (then once only: see `envelope_links`). */
export const EMBEDDED_LINK_MS = 5 * 60_000;

/**
 * `envelope.attach-link`: keep a link's token hash for a recipient whose turn has come. `replace`
 * revokes their earlier links, `add` keeps them, `embedded` replaces them with a link that opens for 5
 * minutes and once. Logged in the story (`emailed` for an email's link, `embedded-link` otherwise).
 * `conflict` unless the envelope is pending, the recipient's group acting and the recipient has not
 * acted (people in copy never get a link), and when the email's event (`eventId`, an outbox row) was
 * for another address than the recipient's now (a person replaced since); `not_found` for an unknown
 * recipient. A `requireEmailCode` recipient's emailed link keeps the hash of its one-time code
 * (`codeHash`), working for 10 minutes.
 */
export const attachEnvelopeLink = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeAttachLink)['request']>,
): Promise<z.infer<(typeof EnvelopeAttachLink)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const aggregate = await lockRecipientEnvelope(client, request.recipientId);
    const recipient = aggregate?.recipients.find((r) => r.id === request.recipientId);
    if (!aggregate || !recipient) throw notFound('recipient');
    refuseForSend(aggregate.envelope, 'its recipient signs through the link the send emailed');
    requireCanAct({ aggregate, recipient }, now, ['signer', 'approver']);
    // An email queued for a person the sender has replaced since must not carry a link to the place.
    const addressed = request.eventId ? await findEventRecipientEmail(client, request.eventId) : undefined;
    if (addressed !== undefined && addressed.toLowerCase() !== recipient.email.toLowerCase()) {
      throw new ServiceError('conflict', 'the recipient was replaced after this email was queued', 'eventId');
    }
    if (request.mode !== 'add') await revokeLinks(client, { recipientId: recipient.id }, now);
    const linkExpiresAt =
      request.mode === 'embedded' ? new Date(now.getTime() + EMBEDDED_LINK_MS) : aggregate.envelope.expiresAt;
    // Only a requireEmailCode recipient's emailed link keeps a code (an embedded one needs none).
    const code =
      request.codeHash && recipient.requireEmailCode && request.mode !== 'embedded'
        ? { hash: request.codeHash, expiresAt: new Date(now.getTime() + EMAIL_CODE_TTL_MS) }
        : undefined;
    const outcome = await insertLink(client, {
      tokenHash: request.tokenHash,
      recipientId: recipient.id,
      mode: request.mode,
      eventId: request.eventId ?? null,
      now,
      expiresAt: request.mode === 'embedded' ? linkExpiresAt : null,
      code,
    });
    if (outcome === 'taken') {
      throw new ServiceError('conflict', 'tokenHash: this link is already attached', 'tokenHash');
    }
    await appendStory(client, aggregate.envelope.id, [
      {
        recipientId: recipient.id,
        event: request.mode === 'embedded' ? 'embedded-link' : 'emailed',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: {
          recipientId: recipient.id,
          email: recipient.email,
          mode: request.mode,
          eventId: request.eventId ?? null,
        },
      },
    ]);
    return {
      envelopeId: aggregate.envelope.id,
      recipientId: recipient.id,
      expiresAt: linkExpiresAt.toISOString(),
      ...(code ? { codeExpiresAt: code.expiresAt.toISOString() } : {}),
    };
  });
};

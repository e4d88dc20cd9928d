import {
  EnvelopeRecipientSigned,
  ServiceError,
  type EnvelopeRecordRevision,
  type TActionReply,
} from '@esign/contracts';
import type { z } from 'zod';
import { inTransaction } from '../../db/signing-repository';
import {
  envelopeEvent,
  eventRecipient,
  findByLink,
  requireCanAct,
  requireCodeVerified,
  type EnvelopeDeps,
} from './envelope-deps';
import { finishAct } from './finish-act';

/**
 * `envelope.record-revision`: a signer's revision is stored. In one transaction: only from the
 * envelope's current `revision` and only by the signer holding the head (`conflict` otherwise) the
 * head moves to `objectKey`, the revision count grows, the hold ends, the signer is `signed`, the
 * story gets `signed` (IP, user agent) followed by the signer's step's events, and
 * `events.envelope.recipient-signed` is queued; then the turn moves on (see `finishAct`).
 */
export const recordEnvelopeRevision = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeRecordRevision)['request']>,
): Promise<TActionReply> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const target = await findByLink(client, request.tokenHash, now, { lock: true });
    requireCanAct(target, now, ['signer']);
    requireCodeVerified(target);
    const { envelope } = target.aggregate;
    const { recipient } = target;
    if (envelope.claimRecipientId !== recipient.id) {
      throw new ServiceError(
        'conflict',
        "revision: the signer does not hold the envelope's head",
        'revision',
      );
    }
    if (envelope.revision !== request.revision) {
      throw new ServiceError(
        'conflict',
        `revision: the envelope is at revision ${envelope.revision}, not ${request.revision}`,
        'revision',
      );
    }
    const revision = envelope.revision + 1;
    return finishAct(client, {
      target,
      status: 'signed',
      now,
      story: [
        ...request.events.map((e) => ({
          recipientId: recipient.id,
          event: e.event,
          at: new Date(e.timestamp),
          ipAddress: null,
          userAgent: null,
          details: e.details,
        })),
        {
          recipientId: recipient.id,
          event: 'signed',
          at: now,
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
          details: {
            recipientId: recipient.id,
            name: recipient.name,
            email: recipient.email,
            ipAddress: request.ipAddress,
            userAgent: request.userAgent,
            revision,
            fileHash: request.fileHash,
            signedAt: request.signedAt,
          },
        },
      ],
      event: envelopeEvent(EnvelopeRecipientSigned.subject, envelope, now, {
        recipient: eventRecipient(recipient),
        ipAddress: request.ipAddress,
        userAgent: request.userAgent,
      }),
      envelopeUpdate: {
        head_key: request.objectKey,
        revision,
        claim_recipient_id: null,
        claimed_until: null,
      },
    });
  });
};

import { ServiceError, type EnvelopeClaim, type EnvelopeRelease } from '@esign/contracts';
import type { z } from 'zod';
import { updateEnvelope } from '../../db/envelope-repository';
import { inTransaction } from '../../db/signing-repository';
import { findByLink, requireCanAct, requireCodeVerified, type EnvelopeDeps } from './envelope-deps';

/** What a caller told `busy` waits before trying again. */
export const BUSY_RETRY_MS = 200;

/**
 * `envelope.claim`: a signer takes the envelope's head for `claimMs` before their step. The envelope's
 * row is locked for the decision, so of two claims at once one wins and the other reads the winner's
 * hold: `busy` when another signer holds the head, `conflict` when this signer already holds it (a
 * double submit) or cannot act.
 */
export const claimEnvelope = async (
  deps: EnvelopeDeps & { claimMs: number },
  request: z.output<(typeof EnvelopeClaim)['request']>,
): Promise<z.infer<(typeof EnvelopeClaim)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient, link } = await findByLink(client, request.tokenHash, now, { lock: true });
    requireCanAct({ aggregate, recipient }, now, ['signer']);
    requireCodeVerified({ link, recipient });
    const { envelope } = aggregate;
    const held =
      envelope.claimRecipientId !== null && (envelope.claimedUntil?.getTime() ?? 0) > now.getTime();
    if (held && envelope.claimRecipientId === recipient.id) {
      throw new ServiceError('conflict', 'a signature of this recipient is already in progress', 'status');
    }
    if (held) return { outcome: 'busy', retryAfterMs: BUSY_RETRY_MS };
    const claimedUntil = new Date(now.getTime() + deps.claimMs);
    await updateEnvelope(client, envelope.id, {
      claim_recipient_id: recipient.id,
      claimed_until: claimedUntil,
    });
    return {
      outcome: 'claimed',
      envelopeId: envelope.id,
      recipientId: recipient.id,
      auditId: envelope.auditId,
      accountId: envelope.accountId,
      objectKey: envelope.headKey,
      revision: envelope.revision,
      claimedUntil: claimedUntil.toISOString(),
    };
  });
};

/** `envelope.release`: end this recipient's hold of the head (their step failed); harmless when they hold none. */
export const releaseEnvelope = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeRelease)['request']>,
): Promise<{ envelopeId: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient } = await findByLink(client, request.tokenHash, now, { lock: true });
    if (aggregate.envelope.claimRecipientId === recipient.id) {
      await updateEnvelope(client, aggregate.envelope.id, { claim_recipient_id: null, claimed_until: null });
    }
    return { envelopeId: aggregate.envelope.id };
  });
};

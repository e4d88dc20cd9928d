import { randomBytes } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import { signingTokenHash } from '../http/signing-token';
import type { EnvelopePorts } from './envelope-ports';

/** What the sender's site gets: the page to frame, usable once, opened within `expiresAt`. */
export interface SigningUrl {
  readonly url: string;
  readonly expiresAt: string;
}

/**
 * A signing URL for an embedded recipient whose turn has come and who has not acted: a token made
 * here (32 bytes from the CSPRNG, base64url, as the mailer makes them), its SHA-256 attached by
 * document-store as an `embedded` link (opens within 5 minutes, once; earlier links of the recipient
 * die), and `<publicBaseUrl>/e/<token>`. The token is in the answer only: never in a log or an event.
 * `not_found` for an unknown envelope or recipient, or another account's; `conflict` for a recipient
 * who is not embedded, whose turn has not come or who acted, an envelope that ended, and an account
 * that registered no origin allowed to frame the page.
 */
export const createSigningUrl = async (
  ports: Pick<EnvelopePorts, 'get' | 'attachLink' | 'embedOrigins'>,
  request: { accountId: string; envelopeId: string; recipientId: string; publicBaseUrl: string },
): Promise<SigningUrl> => {
  const envelope = await ports.get(request.accountId, request.envelopeId);
  const recipient = envelope.recipients.find((r) => r.recipientId === request.recipientId);
  if (!recipient) {
    throw new ServiceError('not_found', `No recipient ${request.recipientId.slice(0, 40)} on this envelope`);
  }
  if (!recipient.embedded) {
    throw new ServiceError(
      'conflict',
      `${recipient.recipientId} is not an embedded recipient: their link is emailed to them`,
    );
  }
  if (envelope.status !== 'pending') {
    throw new ServiceError('conflict', `The envelope is ${envelope.status}: nobody can sign it any more`);
  }
  if (recipient.status === 'waiting') {
    throw new ServiceError(
      'conflict',
      `${recipient.recipientId}'s turn has not come: group ${envelope.currentOrder ?? '?'} acts now, theirs is ${recipient.order}`,
    );
  }
  if (recipient.status !== 'notified' && recipient.status !== 'viewed') {
    throw new ServiceError('conflict', `${recipient.recipientId} has already ${recipient.status}`);
  }
  // Fresh: origins registered a moment ago through another replica count at once.
  const origins = await ports.embedOrigins(request.accountId, { fresh: true });
  if (origins.length === 0) {
    throw new ServiceError(
      'conflict',
      'No origin may frame the signing page yet: register your site first (PUT /api/v1/account/embed-origins)',
    );
  }
  const token = randomBytes(32).toString('base64url');
  const attached = await ports.attachLink({
    recipientId: recipient.recipientId,
    tokenHash: signingTokenHash(token),
    mode: 'embedded',
  });
  return { url: `${request.publicBaseUrl.replace(/\/+$/, '')}/e/${token}`, expiresAt: attached.expiresAt };
};

import type { EnvelopeFindByToken } from '@esign/contracts';
import type { z } from 'zod';
import {
  codeRequired,
  effectiveStatus,
  findByLink,
  toRecipientView,
  type EnvelopeDeps,
} from './envelope-deps';

/**
 * `envelope.find-by-token`: what the signing page needs, by the SHA-256 of a link's token. An ended
 * envelope or a recipient who acted is found with those statuses (the page answers 410); an unknown,
 * revoked or lapsed link is `not_found`.
 */
export const findEnvelopeByToken = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeFindByToken)['request']>,
): Promise<z.infer<(typeof EnvelopeFindByToken)['reply']>> => {
  const now = deps.now();
  const { aggregate, recipient, link } = await findByLink(deps.pool, request.tokenHash, now, { lock: false });
  const { envelope } = aggregate;
  // The recipient's page never learns whom they replaced.
  const { replaces: _replaces, ...view } = toRecipientView(recipient);
  return {
    envelopeId: envelope.id,
    auditId: envelope.auditId,
    accountId: envelope.accountId,
    envelopeStatus: effectiveStatus(envelope, now),
    senderEmail: envelope.senderEmail,
    subject: envelope.subject,
    message: envelope.message,
    fileName: envelope.fileName,
    pageCount: envelope.pageCount,
    expiresAt: envelope.expiresAt.toISOString(),
    objectKey: envelope.headKey,
    revision: envelope.revision,
    recipient: view,
    others: aggregate.recipients
      .filter((r) => r.id !== recipient.id)
      .map((r) => ({ name: r.name, role: r.role, order: r.orderGroup, status: r.status })),
    embedded: link.mode === 'embedded',
    ...(link.mode === 'embedded' ? { linkUsedAt: link.usedAt?.toISOString() ?? null } : {}),
    codeRequired: codeRequired(link, recipient),
  };
};

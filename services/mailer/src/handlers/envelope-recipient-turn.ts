import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientTurn } from '@esign/contracts';
import { deliverEmail, type TSkip } from '../domain/deliver-email';
import { issueEnvelopeLink, type AttachEnvelopeLink, type TIssuedCode } from '../domain/issue-envelope-link';
import { renderEnvelopeCode, renderEnvelopeTurn } from '../domain/render-envelope-emails';
import { setNewCode, type SetEnvelopeCode } from '../domain/set-new-code';
import type { DeliveryDeps } from './deps';

/**
 * `events.envelope.recipient-turn`: email a signer or approver a fresh link to their part of the
 * envelope (`replace` for their turn or a resend, `add` for a reminder). Nothing once the envelope has
 * expired, nor when document-store refuses the link (the envelope ended, or the recipient acted).
 *
 * A `requireEmailCode` recipient's link is attached with the hash of a one-time code, and the code goes
 * in a second email of its own (kind `envelope-code`, no link in it) once the link's email is sent. The
 * code lives only in this attempt's memory; the link's email is recorded with its token's hash. When
 * the code's email fails after the link's was sent, it is retried like any email (the event is
 * redelivered): the retry makes a new code for that link (`envelope.set-code`, by the recorded hash)
 * and sends it. A link that needs no code any more by then (verified, replaced, ended) is a skip.
 */
export const envelopeRecipientTurnHandler =
  (
    deps: DeliveryDeps & {
      attachEnvelopeLink: AttachEnvelopeLink;
      setEnvelopeCode: SetEnvelopeCode;
      publicBaseUrl: string;
      now: () => Date;
    },
  ): EventHandler<typeof EnvelopeRecipientTurn> =>
  async (event, ctx) => {
    const { recipient } = event;
    const withCode = event.requireEmailCode === true;
    const linkKind = event.reason === 'reminder' ? 'envelope-reminder' : 'envelope-turn';
    let code: TIssuedCode | undefined;
    const key = {
      eventId: event.eventId,
      recipient: recipient.email,
      sendId: event.envelopeId,
      auditId: event.auditId,
    };
    const linkEmail = await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: { ...key, kind: linkKind },
        compose: async () => {
          const role = recipient.role;
          if (role === 'cc') return { skip: 'a person in copy has nothing to act on' };
          if (new Date(event.expiresAt) <= deps.now()) return { skip: 'the envelope has expired' };
          const link = await issueEnvelopeLink(deps, {
            recipientId: recipient.recipientId,
            eventId: event.eventId,
            mode: event.reason === 'reminder' ? 'add' : 'replace',
            withCode,
          });
          if ('skip' in link) return link;
          if (new Date(link.expiresAt) <= deps.now()) return { skip: 'the envelope has expired' };
          code = link.code;
          return {
            to: { name: recipient.name, address: recipient.email },
            replyTo: { name: '', address: event.senderEmail },
            ...renderEnvelopeTurn({ event, role, link: link.url, expiresAt: link.expiresAt }),
            ...(link.linkTokenHash ? { linkTokenHash: link.linkTokenHash } : {}),
          };
        },
      },
    );
    if (!withCode || linkEmail === 'skipped') return;
    const retriedCode = async (): Promise<TIssuedCode | TSkip> => {
      const tokenHash = await deps.deliveries.linkTokenHashOf({
        eventId: event.eventId,
        recipient: recipient.email,
        kind: linkKind,
      });
      if (!tokenHash) return { skip: 'no link of this event is known to bind a new code to' };
      return setNewCode(deps, { tokenHash, eventId: event.eventId });
    };
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: { ...key, kind: 'envelope-code' },
        compose: async () => {
          // The link's email went out in an earlier attempt: a new code for the link it carried.
          const issued = code ?? (await retriedCode());
          if ('skip' in issued) return issued;
          return {
            to: { name: recipient.name, address: recipient.email },
            ...renderEnvelopeCode({ event, code: issued.code, expiresAt: issued.expiresAt }),
          };
        },
      },
    );
  };

import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientTurn } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { issueEnvelopeLink, type AttachEnvelopeLink, type TIssuedCode } from '../domain/issue-envelope-link';
import { renderEnvelopeCode, renderEnvelopeTurn } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';

/**
 * `events.envelope.recipient-turn`: email a signer or approver a fresh link to their part of the
 * envelope (`replace` for their turn or a resend, `add` for a reminder). Nothing once the envelope has
 * expired, nor when document-store refuses the link (the envelope ended, or the recipient acted).
 *
 * A `requireEmailCode` recipient's link is attached with the hash of a one-time code, and the code goes
 * in a second email of its own (kind `envelope-code`, no link in it) once the link's email is sent. The
 * code lives only in this attempt's memory: when the code's email fails after the link's was sent, the
 * redelivery has no code to send (it is recorded skipped) and the recipient asks for a new one on the
 * page ("Send a new code").
 */
export const envelopeRecipientTurnHandler =
  (
    deps: DeliveryDeps & {
      attachEnvelopeLink: AttachEnvelopeLink;
      publicBaseUrl: string;
      now: () => Date;
    },
  ): EventHandler<typeof EnvelopeRecipientTurn> =>
  async (event, ctx) => {
    const { recipient } = event;
    const withCode = event.requireEmailCode === true;
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
        key: { ...key, kind: event.reason === 'reminder' ? 'envelope-reminder' : 'envelope-turn' },
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
          };
        },
      },
    );
    if (!withCode || linkEmail === 'skipped') return;
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: { ...key, kind: 'envelope-code' },
        compose: () => {
          if (!code) {
            return Promise.resolve({
              skip: "this link's code was made by an earlier attempt: the recipient can ask for a new one",
            });
          }
          return Promise.resolve({
            to: { name: recipient.name, address: recipient.email },
            ...renderEnvelopeCode({ event, code: code.code, expiresAt: code.expiresAt }),
          });
        },
      },
    );
  };

import type { EventHandler } from '@esign/bus';
import type { EnvelopeCodeRequested } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderEnvelopeCode } from '../domain/render-envelope-emails';
import { setNewCode, type SetEnvelopeCode } from '../domain/set-new-code';
import type { DeliveryDeps } from './deps';

export type { SetEnvelopeCode } from '../domain/set-new-code';

/**
 * `events.envelope.code-requested`: a `requireEmailCode` recipient asked for a new code for their
 * link. Each attempt makes a code, stores its hash on the link (`envelope.set-code`, replacing the
 * earlier code) and emails it on its own (kind `envelope-code`, no link). A link that no longer needs
 * a code (verified, the envelope ended, the recipient acted) is a skip.
 */
export const envelopeCodeRequestedHandler =
  (deps: DeliveryDeps & { setEnvelopeCode: SetEnvelopeCode }): EventHandler<typeof EnvelopeCodeRequested> =>
  async (event, ctx) => {
    const { recipient } = event;
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind: 'envelope-code',
          recipient: recipient.email,
          sendId: event.envelopeId,
          auditId: event.auditId,
        },
        compose: async () => {
          const code = await setNewCode(deps, { tokenHash: event.tokenHash, eventId: event.eventId });
          if ('skip' in code) return code;
          return {
            to: { name: recipient.name, address: recipient.email },
            ...renderEnvelopeCode({ event, code: code.code, expiresAt: code.expiresAt }),
          };
        },
      },
    );
  };

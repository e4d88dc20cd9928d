import type { EventHandler } from '@esign/bus';
import { ServiceError, type EnvelopeCodeRequested } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { generateEmailCode } from '../domain/email-code';
import { renderEnvelopeCode } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';

/** `envelope.set-code` as the mailer uses it (a bus request in production). */
export type SetEnvelopeCode = (request: {
  tokenHash: string;
  codeHash: string;
  eventId: string;
}) => Promise<{ codeExpiresAt: string }>;

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
          const made = generateEmailCode(event.tokenHash);
          let codeExpiresAt: string;
          try {
            ({ codeExpiresAt } = await deps.setEnvelopeCode({
              tokenHash: event.tokenHash,
              codeHash: made.codeHash,
              eventId: event.eventId,
            }));
          } catch (err) {
            if (err instanceof ServiceError && (err.code === 'conflict' || err.code === 'not_found')) {
              return { skip: `no code set: ${err.code}: ${err.message}` };
            }
            throw err;
          }
          return {
            to: { name: recipient.name, address: recipient.email },
            ...renderEnvelopeCode({ event, code: made.code, expiresAt: codeExpiresAt }),
          };
        },
      },
    );
  };

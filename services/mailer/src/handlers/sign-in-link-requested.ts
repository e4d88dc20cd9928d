import type { EventHandler } from '@esign/bus';
import { ServiceError, type SignInLinkRequested, type SignInTokenIssue } from '@esign/contracts';
import type { z } from 'zod';
import { deliverEmail } from '../domain/deliver-email';
import { renderSignInLink } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** `key.issue-sign-in-token` as the handler calls it. */
export type IssueSignInToken = (
  email: string,
  requestId: string,
) => Promise<z.infer<(typeof SignInTokenIssue)['reply']>>;

/**
 * `events.sign-in.link-requested`: email a one-time sign-in link to the account's owner. The token is
 * issued while composing (so a retry after a failed send issues a new one, which replaces the
 * unused one) and goes into the email only: never into the stream, the delivery log or a log line.
 * No account for the address: nothing is sent (the request's answer did not say so either). More than
 * the key service's per-address limit (3 in 15 minutes, counted for every address): nothing is sent.
 */
export const signInLinkRequestedHandler =
  (
    deps: DeliveryDeps & { issueSignInToken: IssueSignInToken; publicBaseUrl: string },
  ): EventHandler<typeof SignInLinkRequested> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        // Not about a signing request: the delivery log's sendId and auditId stay empty.
        key: {
          eventId: event.eventId,
          kind: 'sign-in-link',
          recipient: event.email,
          sendId: '',
          auditId: '',
        },
        compose: async () => {
          // The request's event id: a retry of this email counts once against the per-address limit.
          const issued = await deps.issueSignInToken(event.email, event.eventId).catch((err: unknown) => {
            if (err instanceof ServiceError && err.code === 'rate_limited') return 'limited' as const;
            throw err;
          });
          if (issued === 'limited') return { skip: 'too many sign-in links for this address' };
          if (!issued.accountExists) return { skip: 'no account for this address' };
          const link = `${deps.publicBaseUrl.replace(/\/+$/, '')}/dashboard#/link/${issued.token}`;
          return {
            to: { name: '', address: event.email },
            ...renderSignInLink({ event, link, expiresAt: issued.expiresAt }),
          };
        },
      },
    );
  };

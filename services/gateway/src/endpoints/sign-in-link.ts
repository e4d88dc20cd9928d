import { createHash, randomUUID } from 'node:crypto';
import { ServiceError, SignInLinkRequested, SignInTokenRedeem } from '@esign/contracts';
import { defineOperation } from '../api/operation';
import { AUTH_LIMIT, SIGNED_IN_RESPONSE, signedInAnswer } from './signed-in';
import { ZSignInLinkAccepted, ZSignInLinkRedeem, ZSignInLinkRequest } from './sign-in-link.schemas';

export const requestSignInLinkOperation = defineOperation({
  id: 'requestSignInLink',
  method: 'post',
  path: '/api/auth/sign-in-link',
  tag: 'Account',
  summary: 'Email a sign-in link',
  description:
    'Send a one-time sign-in link to the email, if it has an account. The answer is the same either way, and comes before any lookup (no account enumeration by answer or timing); the email goes out from the mailer. The link opens the dashboard (`/dashboard#/link/<token>`), where a button signs in with POST /api/auth/sign-in-link/redeem: it works once, within 15 minutes, and a newer link replaces it. At most 3 link emails per address in 15 minutes (counted by the key service for every address; past that this answer is still the same, and no email is sent). Needs the mailer (`MAIL_*`/`SMTP_*` settings).',
  auth: 'none',
  dashboard: true,
  rateLimit: AUTH_LIMIT,
  originCheck: 'ifSent',
  request: { json: ZSignInLinkRequest, example: { email: 'ada@example.com' } },
  responses: {
    202: { description: 'Accepted (also when the email has no account)', json: ZSignInLinkAccepted },
  },
  errors: ['invalid_argument', 'permission_denied', 'unavailable', 'internal'],
  async handle(input, deps) {
    const eventId = randomUUID();
    await deps.bus.publish(
      SignInLinkRequested,
      { eventId, email: input.body.email, requestedAt: input.receivedAt },
      { msgId: eventId },
    );
    return {
      status: 202,
      json: {
        accepted: true,
        message:
          'If this address has an account, a sign-in link is on its way. It works once, within 15 minutes.',
      },
    };
  },
});

export const redeemSignInLinkOperation = defineOperation({
  id: 'redeemSignInLink',
  method: 'post',
  path: '/api/auth/sign-in-link/redeem',
  tag: 'Account',
  summary: 'Sign in with an emailed link',
  description:
    "Sign in with the token of an emailed sign-in link: sets the session cookie and answers as POST /api/auth/sign-in. A link works once and for 15 minutes: an unknown, used or expired one is 401. The dashboard calls this from a button (opening the link changes nothing, so a mail scanner that follows links does not use it up). Another site's Origin: 403 (login CSRF).",
  auth: 'none',
  dashboard: true,
  rateLimit: AUTH_LIMIT,
  originCheck: 'ifSent',
  request: { json: ZSignInLinkRedeem, example: { token: 'q2yQf1l7kq0c9m0Xo3V7i8p4e1M6b5n2k7h0d9s4a3w' } },
  responses: { 200: SIGNED_IN_RESPONSE },
  errors: ['invalid_argument', 'unauthenticated', 'permission_denied', 'unavailable', 'internal'],
  async handle(input, deps) {
    // Only the token's hash crosses the bus.
    const tokenHash = createHash('sha256').update(input.body.token).digest('hex');
    const signedIn = await deps.bus
      .request(SignInTokenRedeem, { tokenHash, userAgent: input.client.userAgent })
      .catch((err: unknown) => {
        if (err instanceof ServiceError && err.code === 'unauthenticated') {
          throw new ServiceError(
            'unauthenticated',
            'This sign-in link has expired or was already used: ask for a new one',
          );
        }
        throw err;
      });
    return signedInAnswer(signedIn, deps.config.SESSION_COOKIE_SECURE);
  },
});

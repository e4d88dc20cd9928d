import { createHash, randomUUID } from 'node:crypto';
import {
  AccountSignIn,
  AccountSignUp,
  AccountUsageGet,
  ServiceError,
  SessionSignOut,
  SignInLinkRequested,
  SignInTokenRedeem,
  type TSignedIn,
} from '@esign/contracts';
import { z } from 'zod';
import {
  ZCredentials,
  ZSession,
  ZSignedIn,
  ZSignInLinkAccepted,
  ZSignInLinkRedeem,
  ZSignInLinkRequest,
  ZSignUpAccepted,
  ZSignUpRequest,
} from '../api/account-schemas';
import { defineOperation } from '../api/operation';
import type { GatewayDeps } from '../deps';
import { clearedSessionCookie, csrfTokenOf, sessionCookie } from '../http/session';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** Sign-in and sign-up share one tight limit per client IP (the key service limits per email too). */
const AUTH_LIMIT = {
  bucket: 'auth',
  perMinute: (config: GatewayDeps['config']) => config.AUTH_RATE_LIMIT_PER_MINUTE,
};

const CREDENTIALS_EXAMPLE = { email: 'ada@example.com', password: 'correct horse battery staple' };

export const signUpOperation = defineOperation({
  id: 'signUp',
  method: 'post',
  path: '/api/auth/sign-up',
  tag: 'Account',
  summary: 'Create an account',
  description:
    'Create a dashboard account with an email and a password (8-256 characters). The answer is the same whether or not the email already has an account (an existing account is never changed); then sign in. A new account is on the Free plan.',
  auth: 'none',
  dashboard: true,
  rateLimit: AUTH_LIMIT,
  originCheck: 'ifSent',
  request: { json: ZSignUpRequest, example: CREDENTIALS_EXAMPLE },
  responses: {
    202: {
      description: 'Accepted (also when the email already has an account)',
      json: ZSignUpAccepted,
    },
  },
  errors: ['invalid_argument', 'permission_denied', 'unavailable', 'internal'],
  async handle(input, deps) {
    await deps.bus.request(AccountSignUp, input.body);
    return {
      status: 202,
      json: {
        accepted: true,
        message: 'If this address had no account, it has one now: sign in with the password.',
      },
    };
  },
});

const SIGNED_IN_RESPONSE = {
  description: 'Signed in; the session cookie is set',
  json: ZSignedIn,
  headers: {
    'Set-Cookie': { description: 'The session cookie', schema: z.string() },
    'Cache-Control': { description: 'no-store', schema: z.string() },
  },
};

/** The answer of a sign-in (password or link): the cookie, and what the page needs. */
const signedInAnswer = (signedIn: TSignedIn, secure: boolean) => {
  const { session } = signedIn;
  return {
    status: 200,
    headers: {
      ...NO_STORE,
      'Set-Cookie': sessionCookie({ secure, token: session.token, expiresAt: session.expiresAt }),
    },
    json: {
      email: signedIn.email,
      plan: signedIn.plan,
      csrfToken: csrfTokenOf(session),
      expiresAt: session.expiresAt,
    },
  };
};

export const signInOperation = defineOperation({
  id: 'signIn',
  method: 'post',
  path: '/api/auth/sign-in',
  tag: 'Account',
  summary: 'Sign in to the dashboard',
  description:
    'Sign in with an email and a password. Sets the session cookie (`__Host-esign_session`; HttpOnly, Secure, SameSite=Lax, Path=/) and answers the CSRF token to send in `X-CSRF-Token` with every change made with the cookie. One answer (401) for an unknown email and a wrong password; too many attempts for an email or from an address: 429. Sessions end after 30 minutes unused or 12 hours.',
  auth: 'none',
  dashboard: true,
  rateLimit: AUTH_LIMIT,
  originCheck: 'ifSent',
  request: { json: ZCredentials, example: CREDENTIALS_EXAMPLE },
  responses: { 200: SIGNED_IN_RESPONSE },
  errors: ['invalid_argument', 'unauthenticated', 'permission_denied', 'unavailable', 'internal'],
  async handle(input, deps) {
    const signedIn = await deps.bus.request(AccountSignIn, {
      email: input.body.email,
      password: input.body.password,
      userAgent: input.client.userAgent,
    });
    return signedInAnswer(signedIn, deps.config.SESSION_COOKIE_SECURE);
  },
});

export const signOutOperation = defineOperation({
  id: 'signOut',
  method: 'post',
  path: '/api/auth/sign-out',
  tag: 'Account',
  summary: 'Sign out',
  description:
    'End the session (on every gateway at once) and clear the cookie. Needs the session cookie, an Origin of this site and the X-CSRF-Token.',
  auth: 'session',
  request: {},
  responses: {
    204: {
      description: 'Signed out; the cookie is cleared',
      headers: { 'Set-Cookie': { description: 'Clears the session cookie', schema: z.string() } },
    },
  },
  errors: ['unavailable', 'internal'],
  async handle(input, deps) {
    if (!input.session) throw new Error('signOut needs a session');
    await deps.bus.request(SessionSignOut, { tokenHash: input.session.tokenHash });
    return {
      status: 204,
      empty: true,
      headers: { 'Set-Cookie': clearedSessionCookie(deps.config.SESSION_COOKIE_SECURE) },
    };
  },
});

export const getSessionOperation = defineOperation({
  id: 'getSession',
  method: 'get',
  path: '/api/session',
  tag: 'Account',
  summary: 'The signed-in account',
  description:
    "Who is signed in, the plan and what it allows, this month's usage, and the session's CSRF token (for a page loaded after sign-in).",
  auth: 'session',
  request: {},
  responses: {
    200: {
      description: 'The session',
      json: ZSession,
      headers: { 'Cache-Control': { description: 'no-store', schema: z.string() } },
    },
  },
  errors: ['unavailable', 'internal'],
  async handle(input, deps) {
    const { session } = input;
    if (!session) throw new Error('getSession needs a session');
    const usage = await deps.bus.request(AccountUsageGet, { accountId: session.accountId });
    return {
      status: 200,
      headers: NO_STORE,
      json: {
        email: session.email,
        plan: usage.plan,
        csrfToken: csrfTokenOf(session),
        expiresAt: session.expiresAt,
        idleExpiresAt: session.idleExpiresAt,
        usage,
      },
    };
  },
});

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

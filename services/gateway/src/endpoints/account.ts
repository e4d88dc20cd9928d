import { AccountSignIn, AccountSignUp, AccountUsageGet, SessionSignOut } from '@esign/contracts';
import { z } from 'zod';
import { ZCredentials, ZSession, ZSignUpAccepted, ZSignUpRequest } from './account.schemas';
import { AUTH_LIMIT, SIGNED_IN_RESPONSE, signedInAnswer } from './signed-in';
import { defineOperation } from '../api/operation';
import { clearedSessionCookie, csrfTokenOf } from '../http/session';

const NO_STORE = { 'Cache-Control': 'no-store' };

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
    await deps.bus.request(SessionSignOut, { tokenHash: input.caller.tokenHash });
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
    const { caller: session } = input;
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

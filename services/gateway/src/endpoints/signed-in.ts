import type { TSignedIn } from '@esign/contracts';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { csrfTokenOf, sessionCookie } from '../http/session';
import { ZSignedIn } from './account.schemas';

// What the ways of signing in share (a password: account.ts; an emailed link: sign-in-link.ts).

/** Sign-in and sign-up share one tight limit per client IP (the key service limits per email too). */
export const AUTH_LIMIT = {
  bucket: 'auth',
  perMinute: (config: GatewayDeps['config']) => config.AUTH_RATE_LIMIT_PER_MINUTE,
};

export const SIGNED_IN_RESPONSE = {
  description: 'Signed in; the session cookie is set',
  json: ZSignedIn,
  headers: {
    'Set-Cookie': { description: 'The session cookie', schema: z.string() },
    'Cache-Control': { description: 'no-store', schema: z.string() },
  },
};

/** The answer of a sign-in (password or link): the cookie, and what the page needs. */
export const signedInAnswer = (signedIn: TSignedIn, secure: boolean) => {
  const { session } = signedIn;
  return {
    status: 200,
    headers: {
      'Cache-Control': 'no-store',
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

import { z } from 'zod';
import { ZIsoTimestamp, ZNewPassword, ZPassword, ZPlan } from '@esign/contracts';
import { named } from '../api/named';

// The public bodies of the dashboard's account endpoints (`/api/auth/sign-up`, `/api/auth/sign-in`,
// `/api/session`).

const ZEmail = z.string().max(254).meta({ example: 'ada@example.com' });

export const ZCredentials = named(
  'Credentials',
  'An email and the password.',
  z.object({
    email: ZEmail,
    password: ZPassword.meta({ example: 'correct horse battery staple' }),
  }),
);

export const ZSignUpRequest = named(
  'SignUpRequest',
  'An email and a new password: 8-256 characters, no other rules (NIST SP 800-63B).',
  z.object({
    email: ZEmail,
    password: ZNewPassword.meta({ example: 'correct horse battery staple' }),
  }),
);

export const ZSignUpAccepted = named(
  'SignUpAccepted',
  'The same answer whether or not the email already had an account.',
  z.object({ accepted: z.literal(true), message: z.string() }),
);

const ZCsrfToken = z.string().meta({
  description:
    'Send it in X-CSRF-Token with every request that changes something (POST, DELETE) made with the session cookie',
});

export const ZSignedIn = named(
  'SignedIn',
  'The signed-in account; the session itself is the cookie set with this answer.',
  z.object({
    email: z.string(),
    plan: ZPlan,
    csrfToken: ZCsrfToken,
    expiresAt: ZIsoTimestamp.meta({ description: 'The session ends then at the latest (12 h)' }),
  }),
);

export const ZUsage = named(
  'Usage',
  "The plan's limits and this month's usage (UTC calendar month).",
  z.object({
    limits: z.object({
      documentsPerMonth: z.number().int().nullable().meta({ description: 'null: unlimited' }),
      apiAccess: z.boolean(),
      maxFileBytes: z.number().int(),
    }),
    month: z.string().meta({ example: '2026-11' }),
    documentsUsed: z.number().int(),
    documentsRemaining: z.number().int().nullable(),
    resetsAt: ZIsoTimestamp,
  }),
);

export const ZSession = named(
  'Session',
  'The signed-in account, its plan and usage, and the CSRF token of the session.',
  z.object({
    email: z.string(),
    plan: ZPlan,
    csrfToken: ZCsrfToken,
    expiresAt: ZIsoTimestamp,
    idleExpiresAt: ZIsoTimestamp.meta({ description: 'The session ends then unless it is used again' }),
    usage: ZUsage,
  }),
);

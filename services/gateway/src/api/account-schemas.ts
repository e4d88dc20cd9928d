import { z } from 'zod';
import { ZIsoTimestamp, ZNewPassword, ZPassword, ZPlan } from '@esign/contracts';
import { publicSchemas } from './public-schemas';

// The public bodies of the dashboard's account and key endpoints (`/api/auth/*`, `/api/session`,
// `/api/keys`), named so they appear as components of the OpenAPI document.

const named = <S extends z.ZodType>(id: string, description: string, schema: S): S => {
  publicSchemas.add(schema, { id, description });
  return schema;
};

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

export const ZApiKey = named(
  'ApiKey',
  'An API key as its account sees it: never the key itself.',
  z.object({
    id: z.uuid(),
    name: z.string().nullable(),
    prefix: z.string().meta({ description: 'svc_live_ and the first characters, to tell keys apart' }),
    createdAt: ZIsoTimestamp,
    lastUsedAt: ZIsoTimestamp.nullable().meta({ description: 'Kept to within about a minute' }),
    revoked: z.boolean(),
    revokedAt: ZIsoTimestamp.nullable(),
  }),
);

export const ZApiKeyList = named(
  'ApiKeyList',
  "The account's keys, newest first, revoked ones included.",
  z.object({ keys: z.array(ZApiKey) }),
);

export const ZCreateApiKeyRequest = named(
  'CreateApiKeyRequest',
  'A name for the new key (optional).',
  z.object({ name: z.string().max(100).optional().meta({ example: 'production server' }) }),
);

export const ZNewApiKey = named(
  'NewApiKey',
  'A new key. `key` is shown this once and can never be retrieved again.',
  z.object({
    id: z.uuid(),
    name: z.string().nullable(),
    key: z.string().meta({ description: 'The API key, svc_live_…: store it now' }),
    prefix: z.string(),
    createdAt: ZIsoTimestamp,
  }),
);

export const ZRevokedApiKey = named(
  'RevokedApiKey',
  'A revoked key: every gateway refuses it from the next request on.',
  z.object({ id: z.uuid(), revokedAt: ZIsoTimestamp, alreadyRevoked: z.boolean() }),
);

export const ZDashboardSigned = named(
  'DashboardSigned',
  'A document signed from the dashboard: its record is durable; download the PDF from `downloadUrl`.',
  z.object({
    auditId: z.string().meta({ example: 'ESG-7KQ2-M4XP-9D3F' }),
    signedAt: ZIsoTimestamp,
    fileHash: z.string().meta({ description: 'sha256: of the signed PDF' }),
    fileName: z.string().meta({ description: 'The name the signed PDF downloads as' }),
    size: z.number().int(),
    replayed: z.boolean().meta({ description: 'An earlier request with the same Idempotency-Key made it' }),
    downloadUrl: z.string().meta({ example: '/api/documents/ESG-7KQ2-M4XP-9D3F/pdf' }),
  }),
);

export const ZSentRequestList = named(
  'SentRequestList',
  "The account's requests sent for signing, newest first, with their status.",
  z.object({
    requests: z.array(
      z.object({
        sendId: z.string().meta({ example: 'send_3kTq9ZbW1xYv7LmN2pQr' }),
        auditId: z.string().meta({ example: 'ESG-7KQ2-M4XP-9D3F' }),
        fileName: z.string(),
        subject: z.string(),
        recipientName: z.string(),
        recipientEmail: z.string(),
        status: z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']).meta({
          description: 'As GET /api/v1/status says it: a pending request past its expiry is expired',
        }),
        sentAt: ZIsoTimestamp,
        expiresAt: ZIsoTimestamp,
        viewedAt: ZIsoTimestamp.nullable(),
        endedAt: ZIsoTimestamp.nullable().meta({
          description: 'When it was signed, declined, canceled or expired; null while pending',
        }),
        declineReason: z.string().nullable(),
      }),
    ),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
  }),
);

export const ZSignInLinkRequest = named(
  'SignInLinkRequest',
  'The email to send a sign-in link to.',
  z.object({ email: z.email({ error: 'email must be an email address' }).max(254) }),
);

export const ZSignInLinkAccepted = named(
  'SignInLinkAccepted',
  'The same answer whether or not the email has an account.',
  z.object({ accepted: z.literal(true), message: z.string() }),
);

export const ZSignInLinkRedeem = named(
  'SignInLinkRedeem',
  'The token of an emailed sign-in link (the part after #/link/ in the link).',
  z.object({
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43,128}$/, 'token must be the token of a sign-in link')
      .meta({ example: 'q2yQf1l7kq0c9m0Xo3V7i8p4e1M6b5n2k7h0d9s4a3w' }),
  }),
);

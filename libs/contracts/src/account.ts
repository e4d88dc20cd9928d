import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZIsoTimestamp, ZPlan } from './common';
import { checkEmbedOrigin, MAX_EMBED_ORIGIN_LENGTH, MAX_EMBED_ORIGINS } from './embed-origin';
import { KeyRevoke, LIVE_KEY_PREFIX, ZKeyHash } from './key';

// Accounts, dashboard sign-in, sessions, an account's own keys, plans and quotas: the key service's
// side of the dashboard. Plain secrets cross the bus only where they cannot be avoided and only once:
// a password (sign-up, sign-in, set-password), and a new session token, sign-in token or API key in
// the reply that creates it. Everything a caller presents later (session cookie, sign-in link, API
// key) is sent as its SHA-256. None of these messages may be logged.

/** SHA-256 of a session token or a sign-in token, lowercase hex: the caller hashes, the service compares. */
export const ZTokenHash = ZKeyHash;

/**
 * An email as typed. The key service trims and lowercases it and answers `invalid_argument` (field
 * `email`) when it is not an address, before looking anything up: the check reveals nothing.
 */
export const ZAccountEmail = z.string().max(254);

/** A browser's User-Agent, kept with a session; cut to 512 characters rather than refused. */
export const ZUserAgent = z.string().transform((value) => value.slice(0, 512));

/** A password presented at sign-in: anything up to 256 characters (longer is refused, not truncated). */
export const ZPassword = z.string().min(1).max(256);

/** A new password: 8 to 256 characters (NIST SP 800-63B length rules; no composition rules). */
export const ZNewPassword = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(256, 'must be at most 256 characters');

/** A new session. `token` is the cookie value: returned here once, stored by the service only as its SHA-256. */
export const ZNewSession = z.object({
  sessionId: z.uuid(),
  /** 256 random bits, base64url (43 characters). Put it in the cookie; never log it. */
  token: z.string().min(43),
  /** Secret for the CSRF check (synchronizer or double-submit token), also returned by `key.verify-session`. */
  csrfSecret: z.string().min(43),
  /** The absolute end of the session, whatever its activity. */
  expiresAt: ZIsoTimestamp,
  /** When the session ends if it is not used again (sliding). */
  idleExpiresAt: ZIsoTimestamp,
});
export type TNewSession = z.infer<typeof ZNewSession>;

/** A successful sign-in (by password or by a sign-in link): the account and its new session. */
export const ZSignedIn = z.object({
  accountId: z.uuid(),
  email: z.string(),
  plan: ZPlan,
  session: ZNewSession,
});
export type TSignedIn = z.infer<typeof ZSignedIn>;

/**
 * Sign up with an email and a password. The reply is the same whether the email was new (the account
 * is created with the password) or already had an account (nothing changes, not even a missing
 * password: an account is never claimed through sign-up), and both take the time of one password
 * hash. The gateway must answer both alike too (e.g. 202 "if this address is new, you can sign in")
 * and then may call `key.sign-in`. Errors: `invalid_argument` (field `email` or `password`).
 */
export const AccountSignUp = defineRequest(
  'key.sign-up',
  z.object({ email: ZAccountEmail, password: ZNewPassword }),
  z.object({ accepted: z.literal(true) }),
);

/**
 * Sign in with an email and a password; creates a session. Errors: `unauthenticated` ("invalid email
 * or password") for an unknown email, a wrong password and an account without a password, all in the
 * time of one password hash; `rate_limited` once an email (known or not, so it reveals nothing) has
 * had too many attempts in the window; `invalid_argument` for a malformed email.
 */
export const AccountSignIn = defineRequest(
  'key.sign-in',
  z.object({
    email: ZAccountEmail,
    password: ZPassword,
    /** The browser's User-Agent, kept with the session for a future "your sessions" list. */
    userAgent: ZUserAgent.optional(),
  }),
  ZSignedIn,
);

/** Who a valid session belongs to. */
export const ZSessionPrincipal = z.object({
  sessionId: z.uuid(),
  accountId: z.uuid(),
  email: z.string(),
  plan: ZPlan,
  /** The session's CSRF secret (see `ZNewSession.csrfSecret`). */
  csrfSecret: z.string(),
  expiresAt: ZIsoTimestamp,
  idleExpiresAt: ZIsoTimestamp,
});
export type TSessionPrincipal = z.infer<typeof ZSessionPrincipal>;

/**
 * Resolve a session cookie (by the SHA-256 of its value) to its account, and keep it alive: the idle
 * deadline slides, written at most once a minute. Errors: `unauthenticated` when the session is
 * unknown, signed out, or past its idle or absolute lifetime.
 */
export const SessionVerify = defineRequest(
  'key.verify-session',
  z.object({ tokenHash: ZTokenHash }),
  ZSessionPrincipal,
);

/** End a session (sign-out). Idempotent: `signedOut` is false when there was no such session. */
export const SessionSignOut = defineRequest(
  'key.sign-out',
  z.object({ tokenHash: ZTokenHash }),
  z.object({ signedOut: z.boolean() }),
);

/**
 * A one-time sign-in token for an emailed sign-in link (256 random bits, stored only as its SHA-256,
 * single use, short-lived). For an unknown email nothing is issued (`accountExists: false`): the
 * caller must answer its client the same way in both cases ("if an account exists, a link is on its
 * way") and send the email off the request path. A new token replaces the account's unused ones
 * (only the latest link works). At most `SIGN_IN_LINK_MAX_PER_EMAIL` (3) requests per address in
 * `SIGN_IN_LINK_WINDOW_MS` (15 minutes), counted per address whether it has an account or not, before
 * the lookup: beyond that `rate_limited` (the mailer then sends nothing). Errors: `invalid_argument`
 * (field `email`), `rate_limited`.
 */
export const SignInTokenIssue = defineRequest(
  'key.issue-sign-in-token',
  z.object({
    email: ZAccountEmail,
    /**
     * The link request this is for (the mailer passes the event's `eventId`): a retry of the same
     * request is counted once against the per-address limit. Without it, every call counts.
     */
    requestId: z.uuid().optional(),
  }),
  z.discriminatedUnion('accountExists', [
    z.object({
      accountExists: z.literal(true),
      accountId: z.uuid(),
      /** Goes into the link, and nowhere else; never logged. */
      token: z.string().min(43),
      expiresAt: ZIsoTimestamp,
    }),
    z.object({ accountExists: z.literal(false) }),
  ]),
);

/**
 * Use a sign-in token (by its SHA-256): once, before it expires; creates a session and marks the
 * account's email as verified. Errors: `unauthenticated` when unknown, used or expired (the gateway
 * may answer 410 for a link).
 */
export const SignInTokenRedeem = defineRequest(
  'key.redeem-sign-in-token',
  z.object({ tokenHash: ZTokenHash, userAgent: ZUserAgent.optional() }),
  ZSignedIn,
);

/**
 * Someone asked for a sign-in link for `email` (gateway, `POST /api/auth/sign-in-link`). Durable: the
 * mailer consumes it and, when composing the email, asks for the token itself
 * (`key.issue-sign-in-token`), so the token lives only in the email, never in the stream or a log; for
 * an email without an account it sends nothing. `eventId` makes a redelivery send nothing twice.
 */
export const ZSignInLinkRequestedEvent = z.object({
  eventId: z.uuid(),
  email: ZAccountEmail,
  requestedAt: ZIsoTimestamp,
});
export type TSignInLinkRequestedEvent = z.infer<typeof ZSignInLinkRequestedEvent>;

export const SignInLinkRequested = defineEvent('events.sign-in.link-requested', ZSignInLinkRequestedEvent, {
  durable: true,
});

/** A key as its owner sees it in the dashboard: never the key itself nor its hash. */
export const ZAccountKey = z.object({
  keyId: z.uuid(),
  /** The name given at creation (the CLI's `--label`), or null. */
  name: z.string().nullable(),
  /** `svc_live_` and the first 3 random characters, to tell keys apart. */
  keyPrefix: z.string(),
  createdAt: ZIsoTimestamp,
  /** Last verified use, kept to within about a minute (and the gateway's key cache); null if never used. */
  lastUsedAt: ZIsoTimestamp.nullable(),
  revoked: z.boolean(),
  revokedAt: ZIsoTimestamp.nullable(),
});
export type TAccountKey = z.infer<typeof ZAccountKey>;

/** Name of a key: trimmed, 1-100 characters (an empty name means none). */
export const ZKeyName = z.string().max(100);

/** The account's keys, newest first, revoked ones included. Errors: none (an unknown account has no keys). */
export const AccountKeysList = defineRequest(
  'key.list-account-keys',
  z.object({ accountId: z.uuid() }),
  z.object({ keys: z.array(ZAccountKey) }),
);

/**
 * Create a key for the account (from the dashboard). The reply carries the plain key once; the gateway
 * returns it with `Cache-Control: no-store`. Errors: `not_found` (unknown account), `invalid_argument`
 * (field `name`).
 */
export const AccountKeyCreate = defineRequest(
  'key.create-account-key',
  z.object({ accountId: z.uuid(), name: ZKeyName.optional() }),
  z.object({
    keyId: z.uuid(),
    name: z.string().nullable(),
    /** The plain key. Shown once; the service keeps only its SHA-256. */
    apiKey: z.string().startsWith(LIVE_KEY_PREFIX),
    keyPrefix: z.string(),
    createdAt: ZIsoTimestamp,
  }),
);

/**
 * Revoke one of the account's keys; publishes `events.key.revoked` like `key.revoke`, so every gateway
 * refuses it on its next request. Idempotent (`alreadyRevoked`). Errors: `not_found` when the key does
 * not exist or belongs to another account (the two are not told apart).
 */
export const AccountKeyRevoke = defineRequest(
  'key.revoke-account-key',
  z.object({ accountId: z.uuid(), keyId: z.uuid() }),
  KeyRevoke.reply,
);

/** A calendar month in UTC, `YYYY-MM`. */
export const ZUtcMonth = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/);

/**
 * Reserve one document of this month's quota (UTC calendar month), atomically: concurrent calls never
 * grant more than the plan's limit. Call it before creating a document (signing), and
 * `key.release-document` if the document is then not created. Business (unlimited) is counted too.
 * Errors: `permission_denied` when the month's quota is used up (the message names the plan, the
 * limit and when it resets; proposed HTTP status 403, see services/key/README.md), `not_found` for an
 * unknown account.
 */
export const DocumentQuotaReserve = defineRequest(
  'key.reserve-document',
  z.object({ accountId: z.uuid() }),
  z.object({
    reservationId: z.uuid(),
    month: ZUtcMonth,
    /**
     * Documents counted this month, this one included; null on a plan without a limit (its signings
     * are not counted against one, and the count is not read on this path: `key.get-usage` has it).
     */
    used: z.number().int().nullable(),
    /** The plan's monthly limit; null is unlimited. */
    limit: z.number().int().nullable(),
  }),
);

/**
 * Give a reservation back (the document was not created). Idempotent: a second call answers
 * `alreadyReleased: true` and changes nothing. Errors: `not_found` when the reservation does not exist
 * or is another account's.
 */
export const DocumentQuotaRelease = defineRequest(
  'key.release-document',
  z.object({ accountId: z.uuid(), reservationId: z.uuid() }),
  z.object({ reservationId: z.uuid(), month: ZUtcMonth, alreadyReleased: z.boolean() }),
);

/** The account, its plan's limits and this month's usage, for the dashboard. Errors: `not_found`. */
export const AccountUsageGet = defineRequest(
  'key.get-usage',
  z.object({ accountId: z.uuid() }),
  z.object({
    accountId: z.uuid(),
    email: z.string(),
    plan: ZPlan,
    limits: z.object({
      documentsPerMonth: z.number().int().nullable(),
      apiAccess: z.boolean(),
      maxFileBytes: z.number().int(),
    }),
    month: ZUtcMonth,
    documentsUsed: z.number().int(),
    /** null when the plan is unlimited. */
    documentsRemaining: z.number().int().nullable(),
    /** Start of the next UTC month, when the count starts again at 0. */
    resetsAt: ZIsoTimestamp,
  }),
);

/** Operator only (CLI), never exposed by the gateway: change an account's plan. Errors: `not_found`. */
export const AccountPlanSet = defineRequest(
  'key.set-plan',
  z.object({ email: ZAccountEmail, plan: ZPlan }),
  z.object({ accountId: z.uuid(), plan: ZPlan, previousPlan: ZPlan }),
);

/**
 * Operator only (CLI), never exposed by the gateway: set an account's password (for accounts created
 * by the CLI, or a reset). Ends every session of the account. Errors: `not_found`, `invalid_argument`.
 */
export const AccountPasswordSet = defineRequest(
  'key.set-password',
  z.object({ email: ZAccountEmail, password: ZNewPassword }),
  z.object({ accountId: z.uuid(), sessionsEnded: z.number().int() }),
);

// ——— embedded signing: the origins allowed to frame the account's signing pages ———

export { MAX_EMBED_ORIGINS, MAX_EMBED_ORIGIN_LENGTH, checkEmbedOrigin } from './embed-origin';

/**
 * One origin allowed to frame the account's embedded signing pages, exactly as a browser names it:
 * `https://host[:port]` (no path, query, fragment or credentials), `http://` only for a loopback host
 * (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`). Stored as the browser serialises it (lower
 * case, default port dropped), which is what `frame-ancestors`, `postMessage` and `event.origin` compare.
 * The check is `checkEmbedOrigin` (embed-origin.ts), which the dashboard runs too.
 */
export const ZEmbedOrigin = z
  .string()
  .max(MAX_EMBED_ORIGIN_LENGTH)
  .transform((value, ctx) => {
    const checked = checkEmbedOrigin(value);
    if ('error' in checked) {
      ctx.addIssue({ code: 'custom', message: checked.error });
      return z.NEVER;
    }
    return checked.origin;
  });

/** The account's embed origins, distinct, at most `MAX_EMBED_ORIGINS` (an empty list turns embedding off). */
export const ZEmbedOrigins = z
  .array(ZEmbedOrigin)
  .max(MAX_EMBED_ORIGINS, `at most ${MAX_EMBED_ORIGINS} origins`)
  .transform((origins) => [...new Set(origins)]);

/** The origins allowed to frame the account's embedded signing pages (empty: none). Errors: `not_found`. */
export const AccountEmbedOriginsGet = defineRequest(
  'key.get-embed-origins',
  z.object({ accountId: z.uuid() }),
  z.object({ accountId: z.uuid(), origins: z.array(z.string()) }),
);

/** Replace the origins allowed to frame the account's embedded signing pages. Errors: `not_found`, `invalid_argument` (`origins`). */
export const AccountEmbedOriginsSet = defineRequest(
  'key.set-embed-origins',
  z.object({ accountId: z.uuid(), origins: ZEmbedOrigins }),
  z.object({ accountId: z.uuid(), origins: z.array(z.string()) }),
);

import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZIsoTimestamp, ZPlan } from './common';
import { LIVE_KEY_PREFIX, SANDBOX_TOKEN_PREFIX } from './constants';

export { LIVE_KEY_PREFIX, SANDBOX_TOKEN_PREFIX };

/** SHA-256 of a key, hex. Keys never cross the bus in plain text: callers hash them first. */
export const ZKeyHash = z.string().regex(/^[0-9a-f]{64}$/);

/** Who a valid key belongs to. `apiAccess` is decided by the key service from the account's plan. */
export const ZPrincipal = z.object({
  accountId: z.uuid(),
  keyId: z.uuid(),
  email: z.string(),
  plan: ZPlan,
  apiAccess: z.boolean(),
});
export type TPrincipal = z.infer<typeof ZPrincipal>;

/** Resolve a key hash to its account; `unauthenticated` when unknown or revoked. */
export const KeyVerify = defineRequest('key.verify', z.object({ keyHash: ZKeyHash }), ZPrincipal);

/** Create a key (and the account, when the email is new). The reply carries the key once. */
export const KeyCreate = defineRequest(
  'key.create',
  z.object({ email: z.email(), plan: ZPlan.optional(), label: z.string().max(100).optional() }),
  z.object({
    accountId: z.uuid(),
    accountCreated: z.boolean(),
    plan: ZPlan,
    keyId: z.uuid(),
    /** The plain key. Shown once; the service keeps only its SHA-256. */
    apiKey: z.string().startsWith(LIVE_KEY_PREFIX),
    keyPrefix: z.string(),
    createdAt: ZIsoTimestamp,
  }),
);

/** Revoke a key by its id or by the hash of the key itself. */
export const KeyRevoke = defineRequest(
  'key.revoke',
  z.union([z.object({ keyId: z.uuid() }), z.object({ keyHash: ZKeyHash })]),
  z.object({ keyId: z.uuid(), accountId: z.uuid(), revokedAt: ZIsoTimestamp, alreadyRevoked: z.boolean() }),
);

/** Published when a key is revoked; every gateway evicts it from its cache at once. */
export const KeyRevoked = defineEvent(
  'events.key.revoked',
  z.object({ keyId: z.uuid(), keyHash: ZKeyHash, accountId: z.uuid(), revokedAt: ZIsoTimestamp }),
  { durable: false },
);

/**
 * Published when an operator changes an account's plan: every gateway forgets the account's cached
 * keys at once, so API access and limits follow the new plan on the next request.
 */
export const AccountPlanChanged = defineEvent(
  'events.account.plan-changed',
  z.object({ accountId: z.uuid(), plan: ZPlan, changedAt: ZIsoTimestamp }),
  { durable: false },
);

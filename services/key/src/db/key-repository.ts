import type { TPlan } from '@esign/contracts';
import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { accounts, apiKeys, type TKeySchema } from './schema';

export type KeyDatabase = NodePgDatabase<TKeySchema>;

/** A key that is not revoked, with its account. */
export interface ActiveKey {
  readonly keyId: string;
  readonly accountId: string;
  readonly email: string;
  readonly plan: TPlan;
  readonly lastUsedAt: Date | null;
}

export interface CreatedKey {
  readonly accountId: string;
  readonly accountCreated: boolean;
  readonly plan: TPlan;
  readonly keyId: string;
  readonly createdAt: Date;
}

export interface RevokedKey {
  readonly keyId: string;
  readonly accountId: string;
  readonly keyHash: string;
  readonly revokedAt: Date;
  readonly alreadyRevoked: boolean;
}

/** Which key to revoke: by its id or by the hash of the key itself. */
export type KeyTarget = { readonly keyId: string } | { readonly keyHash: string };

/** The key service's storage. Plain keys never reach it: only hashes and display prefixes. */
export interface KeyRepository {
  findActiveKey(keyHash: string): Promise<ActiveKey | undefined>;
  /** Record that a key was used; writes at most about once a minute per key. */
  markUsed(keyId: string): Promise<void>;
  /**
   * Store a key, creating its account when the email is new. A new account gets `plan` or 'free';
   * an existing account's plan changes only when `plan` is given.
   */
  createKey(input: {
    email: string;
    plan?: TPlan;
    label?: string;
    keyHash: string;
    prefix: string;
  }): Promise<CreatedKey>;
  /** Revoke a key once; a second call reports the first revocation. `undefined` when unknown. */
  revokeKey(target: KeyTarget): Promise<RevokedKey | undefined>;
}

/** Minimum time between two `last_used_at` writes for one key, so that verification stays a read. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const createKeyRepository = (db: KeyDatabase): KeyRepository => ({
  async findActiveKey(keyHash) {
    const [row] = await db
      .select({
        keyId: apiKeys.id,
        accountId: accounts.id,
        email: accounts.email,
        plan: accounts.plan,
        lastUsedAt: apiKeys.lastUsedAt,
      })
      .from(apiKeys)
      .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
    return row;
  },

  async markUsed(keyId) {
    await db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(
        and(
          eq(apiKeys.id, keyId),
          or(
            isNull(apiKeys.lastUsedAt),
            lt(apiKeys.lastUsedAt, sql`now() - make_interval(secs => ${LAST_USED_RESOLUTION_MS / 1000})`),
          ),
        ),
      );
  },

  createKey({ email, plan, label, keyHash, prefix }) {
    return db.transaction(async (tx) => {
      const [created] = await tx
        .insert(accounts)
        .values({ email, plan: plan ?? 'free' })
        .onConflictDoNothing({ target: accounts.email })
        .returning({ id: accounts.id, plan: accounts.plan });
      let account = created;
      if (!account) {
        // The account exists (perhaps created a moment ago by a concurrent call, now committed).
        [account] = plan
          ? await tx
              .update(accounts)
              .set({ plan })
              .where(eq(accounts.email, email))
              .returning({ id: accounts.id, plan: accounts.plan })
          : await tx
              .select({ id: accounts.id, plan: accounts.plan })
              .from(accounts)
              .where(eq(accounts.email, email));
      }
      if (!account) throw new Error('account neither inserted nor found');
      const [key] = await tx
        .insert(apiKeys)
        .values({ accountId: account.id, keyHash, prefix, label: label ?? null })
        .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt });
      if (!key) throw new Error('key insert returned no row');
      return {
        accountId: account.id,
        accountCreated: created !== undefined,
        plan: account.plan,
        keyId: key.id,
        createdAt: key.createdAt,
      };
    });
  },

  async revokeKey(target) {
    const match: SQL = 'keyId' in target ? eq(apiKeys.id, target.keyId) : eq(apiKeys.keyHash, target.keyHash);
    const columns = {
      keyId: apiKeys.id,
      accountId: apiKeys.accountId,
      keyHash: apiKeys.keyHash,
      revokedAt: apiKeys.revokedAt,
    };
    const [revoked] = await db
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(match, isNull(apiKeys.revokedAt)))
      .returning(columns);
    const row = revoked ?? (await db.select(columns).from(apiKeys).where(match))[0];
    if (!row?.revokedAt) return undefined;
    return { ...row, revokedAt: row.revokedAt, alreadyRevoked: revoked === undefined };
  },
});

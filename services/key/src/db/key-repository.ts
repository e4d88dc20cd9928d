import type { TPlan } from '@esign/contracts';
import { and, desc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
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

/** A key as its owner sees it: never the key nor its hash. */
export interface ListedKey {
  readonly keyId: string;
  readonly label: string | null;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

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
  /**
   * Revoke a key once; a second call reports the first revocation. `undefined` when unknown, or when
   * `accountId` is given and the key is another account's.
   */
  revokeKey(target: KeyTarget, accountId?: string): Promise<RevokedKey | undefined>;
  /** The account's keys, newest first. */
  listKeys(accountId: string): Promise<ListedKey[]>;
  /** Store a key for an existing account; `undefined` when there is no such account. */
  createKeyForAccount(input: {
    accountId: string;
    label?: string;
    keyHash: string;
    prefix: string;
  }): Promise<{ keyId: string; createdAt: Date } | undefined>;
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

  async revokeKey(target, accountId) {
    const byKey = 'keyId' in target ? eq(apiKeys.id, target.keyId) : eq(apiKeys.keyHash, target.keyHash);
    const match: SQL =
      (accountId === undefined ? byKey : and(byKey, eq(apiKeys.accountId, accountId))) ?? byKey;
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

  listKeys(accountId) {
    return db
      .select({
        keyId: apiKeys.id,
        label: apiKeys.label,
        prefix: apiKeys.prefix,
        createdAt: apiKeys.createdAt,
        lastUsedAt: apiKeys.lastUsedAt,
        revokedAt: apiKeys.revokedAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  },

  async createKeyForAccount({ accountId, label, keyHash, prefix }) {
    const result = await db.execute<{ id: string; created_at: Date | string }>(sql`
      insert into ${apiKeys} (account_id, key_hash, prefix, label)
      select ${accounts.id}, ${keyHash}, ${prefix}, ${label ?? null} from ${accounts}
      where ${accounts.id} = ${accountId}
      returning id, created_at`);
    const [row] = result.rows;
    return row && { keyId: row.id, createdAt: new Date(row.created_at) };
  },
});

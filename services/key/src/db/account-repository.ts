import type { TPlan } from '@esign/contracts';
import { eq, sql } from 'drizzle-orm';
import type { KeyDatabase } from './key-repository';
import { accounts, documentReservations, documentUsage, sessions, signInAttempts } from './schema';

/** An account as sign-in sees it. */
export interface AccountRecord {
  readonly accountId: string;
  readonly email: string;
  readonly plan: TPlan;
  readonly passwordHash: string | null;
}

/** Accounts, their passwords and password sign-in attempts. Only password hashes are ever stored. */
export interface AccountRepository {
  findByEmail(email: string): Promise<AccountRecord | undefined>;
  findById(accountId: string): Promise<AccountRecord | undefined>;
  /** Create a free account with a password; false (and nothing changed) when the email has an account. */
  insertWithPassword(input: { email: string; passwordHash: string; now: Date }): Promise<boolean>;
  /** Replace the password and end every session of the account; undefined when the email is unknown. */
  setPassword(input: {
    email: string;
    passwordHash: string;
    now: Date;
  }): Promise<{ accountId: string; sessionsEnded: number } | undefined>;
  /** Store a stronger hash of the same password (after a sign-in with weaker parameters). */
  replacePasswordHash(accountId: string, passwordHash: string): Promise<void>;
  /**
   * Change the plan and recount `month`'s documents (its first day) into its usage row, in one
   * statement; undefined when the email has no account.
   */
  setPlan(
    email: string,
    plan: TPlan,
    month: string,
  ): Promise<{ accountId: string; previousPlan: TPlan } | undefined>;
  markEmailVerified(accountId: string, now: Date): Promise<void>;
  /** The origins allowed to frame the account's embedded signing pages; undefined for an unknown account. */
  findEmbedOrigins(accountId: string): Promise<readonly string[] | undefined>;
  /** Replace them; false when the account is unknown. */
  setEmbedOrigins(accountId: string, origins: readonly string[]): Promise<boolean>;
  /**
   * Count one sign-in attempt for an email (by its hash) in a fixed window that starts at the first
   * attempt; a window older than `windowMs` starts again. Returns the attempts in the current window and
   * when it ends. One statement, so concurrent attempts are all counted.
   */
  countSignInAttempt(input: {
    emailHash: string;
    now: Date;
    windowMs: number;
  }): Promise<{ attempts: number; windowEndsAt: Date }>;
  clearSignInAttempts(emailHash: string): Promise<void>;
}

/**
 * Run a query that carries a password hash. drizzle's error message lists the query's parameters, and
 * failures are logged: rethrow with the driver's message only (the driver's error stays the `cause`, so
 * a database outage is still recognised), so that no hash reaches a log.
 */
const withoutParameters = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    // drizzle's query error wraps the driver's; other errors (a refused connection) carry no parameters.
    if (!(err instanceof Error && err.cause instanceof Error)) throw err;
    throw new Error(`password query failed: ${err.cause.message}`, { cause: err.cause });
  }
};

const columns = {
  accountId: accounts.id,
  email: accounts.email,
  plan: accounts.plan,
  passwordHash: accounts.passwordHash,
};

export const createAccountRepository = (db: KeyDatabase): AccountRepository => ({
  async findByEmail(email) {
    const [row] = await db.select(columns).from(accounts).where(eq(accounts.email, email));
    return row;
  },

  async findById(accountId) {
    const [row] = await db.select(columns).from(accounts).where(eq(accounts.id, accountId));
    return row;
  },

  async insertWithPassword({ email, passwordHash, now }) {
    const inserted = await withoutParameters(() =>
      db
        .insert(accounts)
        .values({ email, plan: 'free', passwordHash, passwordChangedAt: now })
        .onConflictDoNothing({ target: accounts.email })
        .returning({ id: accounts.id }),
    );
    return inserted.length === 1;
  },

  setPassword({ email, passwordHash, now }) {
    return withoutParameters(() =>
      db.transaction(async (tx) => {
        const [account] = await tx
          .update(accounts)
          .set({ passwordHash, passwordChangedAt: now })
          .where(eq(accounts.email, email))
          .returning({ id: accounts.id });
        if (!account) return undefined;
        const ended = await tx
          .delete(sessions)
          .where(eq(sessions.accountId, account.id))
          .returning({ id: sessions.id });
        return { accountId: account.id, sessionsEnded: ended.length };
      }),
    );
  },

  async replacePasswordHash(accountId, passwordHash) {
    await withoutParameters(() =>
      db.update(accounts).set({ passwordHash }).where(eq(accounts.id, accountId)),
    );
  },

  async setPlan(email, plan, month) {
    // The month's usage row is set to the month's reservations not given back, in the same statement:
    // while a plan has no limit its reservations do not touch that row (quota-repository.ts), so a
    // plan with a limit starts from the real count.
    const result = await db.execute<{ id: string; previous_plan: TPlan }>(sql`
      with previous as (
        select id, plan from ${accounts} where ${accounts.email} = ${email} for update
      ), changed as (
        update ${accounts} set plan = ${plan} from previous where ${accounts.id} = previous.id
        returning ${accounts.id} as id, previous.plan as previous_plan
      ), recounted as (
        insert into ${documentUsage} as u (account_id, month, used)
        select changed.id, ${month}::date, (
          select count(*) from ${documentReservations} r
          where r.account_id = changed.id and r.month = ${month}::date and r.released_at is null
        ) from changed
        on conflict (account_id, month) do update set used = excluded.used
      )
      select id, previous_plan from changed`);
    const [row] = result.rows;
    return row && { accountId: row.id, previousPlan: row.previous_plan };
  },

  async markEmailVerified(accountId, now) {
    await db
      .update(accounts)
      .set({ emailVerifiedAt: sql`coalesce(${accounts.emailVerifiedAt}, ${now.toISOString()}::timestamptz)` })
      .where(eq(accounts.id, accountId));
  },

  async findEmbedOrigins(accountId) {
    const [row] = await db
      .select({ origins: accounts.embedOrigins })
      .from(accounts)
      .where(eq(accounts.id, accountId));
    return row?.origins;
  },

  async setEmbedOrigins(accountId, origins) {
    const updated = await db
      .update(accounts)
      .set({ embedOrigins: [...origins] })
      .where(eq(accounts.id, accountId))
      .returning({ id: accounts.id });
    return updated.length === 1;
  },

  async countSignInAttempt({ emailHash, now, windowMs }) {
    const at = now.toISOString();
    const staleBefore = new Date(now.getTime() - windowMs).toISOString();
    const result = await db.execute<{ attempts: number; window_started_at: Date | string }>(sql`
      insert into ${signInAttempts} as a (email_hash, attempts, window_started_at)
      values (${emailHash}, 1, ${at}::timestamptz)
      on conflict (email_hash) do update set
        attempts = case when a.window_started_at <= ${staleBefore}::timestamptz then 1 else a.attempts + 1 end,
        window_started_at = case when a.window_started_at <= ${staleBefore}::timestamptz
          then ${at}::timestamptz else a.window_started_at end
      returning attempts, window_started_at`);
    const [row] = result.rows;
    if (!row) throw new Error('sign-in attempt upsert returned no row');
    return {
      attempts: Number(row.attempts),
      windowEndsAt: new Date(new Date(row.window_started_at).getTime() + windowMs),
    };
  },

  async clearSignInAttempts(emailHash) {
    await db.delete(signInAttempts).where(eq(signInAttempts.emailHash, emailHash));
  },
});

import type { TPlan } from '@esign/contracts';
import { and, eq, gt, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { KeyDatabase } from './key-repository';
import { accounts, sessions, signInAttempts, signInLinkRequests, signInTokens } from './schema';

/** A stored session with its account. */
export interface SessionRecord {
  readonly sessionId: string;
  readonly accountId: string;
  readonly email: string;
  readonly plan: TPlan;
  readonly csrfSecret: string;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
}

/** Sessions and sign-in tokens, by the SHA-256 of their tokens only. */
export interface SessionRepository {
  createSession(input: {
    accountId: string;
    tokenHash: string;
    csrfSecret: string;
    userAgent?: string;
    now: Date;
    expiresAt: Date;
  }): Promise<{ sessionId: string }>;
  findSession(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Move last_seen_at to `now` unless it was written after `notBefore` (at most one write per interval). */
  touchSession(sessionId: string, now: Date, notBefore: Date): Promise<void>;
  deleteSession(tokenHash: string): Promise<boolean>;
  createSignInToken(input: {
    accountId: string;
    tokenHash: string;
    now: Date;
    expiresAt: Date;
  }): Promise<void>;
  /** Use a sign-in token once: the account id, or undefined when unknown, used or expired. */
  redeemSignInToken(tokenHash: string, now: Date): Promise<string | undefined>;
  /**
   * Record a sign-in link request for an address (once per `requestId`: a retry keeps its first time)
   * and count the address's requests in the `windowMs` up to and including this one: a retry of an
   * earlier request gets the count it had then, not one raised by later requests.
   */
  countSignInLinkRequest(input: {
    requestId: string;
    emailHash: string;
    now: Date;
    windowMs: number;
  }): Promise<number>;
  /**
   * Delete expired sessions (idle or absolute), expired sign-in tokens, finished attempt windows and
   * link requests older than their window.
   */
  purgeExpired(input: {
    now: Date;
    idleMs: number;
    attemptWindowMs: number;
    linkWindowMs?: number;
  }): Promise<{
    sessions: number;
    signInTokens: number;
    signInAttempts: number;
    signInLinkRequests: number;
  }>;
}

export const createSessionRepository = (db: KeyDatabase): SessionRepository => ({
  async createSession({ accountId, tokenHash, csrfSecret, userAgent, now, expiresAt }) {
    const [row] = await db
      .insert(sessions)
      .values({
        accountId,
        tokenHash,
        csrfSecret,
        userAgent: userAgent ?? null,
        createdAt: now,
        lastSeenAt: now,
        expiresAt,
      })
      .returning({ sessionId: sessions.id });
    if (!row) throw new Error('session insert returned no row');
    return row;
  },

  async findSession(tokenHash) {
    const [row] = await db
      .select({
        sessionId: sessions.id,
        accountId: accounts.id,
        email: accounts.email,
        plan: accounts.plan,
        csrfSecret: sessions.csrfSecret,
        lastSeenAt: sessions.lastSeenAt,
        expiresAt: sessions.expiresAt,
      })
      .from(sessions)
      .innerJoin(accounts, eq(accounts.id, sessions.accountId))
      .where(eq(sessions.tokenHash, tokenHash));
    return row;
  },

  async touchSession(sessionId, now, notBefore) {
    await db
      .update(sessions)
      .set({ lastSeenAt: now })
      .where(and(eq(sessions.id, sessionId), lt(sessions.lastSeenAt, notBefore)));
  },

  async deleteSession(tokenHash) {
    const deleted = await db
      .delete(sessions)
      .where(eq(sessions.tokenHash, tokenHash))
      .returning({ id: sessions.id });
    return deleted.length > 0;
  },

  async createSignInToken({ accountId, tokenHash, now, expiresAt }) {
    await db.transaction(async (tx) => {
      await tx
        .delete(signInTokens)
        .where(and(eq(signInTokens.accountId, accountId), isNull(signInTokens.usedAt)));
      await tx.insert(signInTokens).values({ accountId, tokenHash, createdAt: now, expiresAt });
    });
  },

  async redeemSignInToken(tokenHash, now) {
    // One statement: of two concurrent uses, exactly one finds used_at still null.
    const [row] = await db
      .update(signInTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(signInTokens.tokenHash, tokenHash),
          isNull(signInTokens.usedAt),
          gt(signInTokens.expiresAt, now),
        ),
      )
      .returning({ accountId: signInTokens.accountId });
    return row?.accountId;
  },

  async countSignInLinkRequest({ requestId, emailHash, now, windowMs }) {
    await db
      .insert(signInLinkRequests)
      .values({ requestId, emailHash, createdAt: now })
      .onConflictDoNothing({ target: signInLinkRequests.requestId });
    const result = await db.execute<{ n: number }>(sql`
      with own as (
        select ${signInLinkRequests.createdAt} as created_at from ${signInLinkRequests}
        where ${signInLinkRequests.requestId} = ${requestId}
      )
      select count(*)::int as n from ${signInLinkRequests}, own
      where ${signInLinkRequests.emailHash} = ${emailHash}
        and ${signInLinkRequests.createdAt} > own.created_at - make_interval(secs => ${windowMs / 1000})
        and (${signInLinkRequests.createdAt}, ${signInLinkRequests.requestId}) <= (own.created_at, ${requestId}::uuid)`);
    return Number(result.rows[0]?.n ?? 1);
  },

  async purgeExpired({ now, idleMs, attemptWindowMs, linkWindowMs = attemptWindowMs }) {
    const idleBefore = new Date(now.getTime() - idleMs);
    const expiredSessions = await db
      .delete(sessions)
      .where(or(lte(sessions.expiresAt, now), lte(sessions.lastSeenAt, idleBefore)))
      .returning({ id: sessions.id });
    const expiredTokens = await db
      .delete(signInTokens)
      .where(lte(signInTokens.expiresAt, now))
      .returning({ id: signInTokens.id });
    const finishedWindows = await db
      .delete(signInAttempts)
      .where(lte(signInAttempts.windowStartedAt, new Date(now.getTime() - attemptWindowMs)))
      .returning({ emailHash: signInAttempts.emailHash });
    const oldLinkRequests = await db
      .delete(signInLinkRequests)
      .where(lte(signInLinkRequests.createdAt, new Date(now.getTime() - linkWindowMs)))
      .returning({ requestId: signInLinkRequests.requestId });
    return {
      sessions: expiredSessions.length,
      signInTokens: expiredTokens.length,
      signInAttempts: finishedWindows.length,
      signInLinkRequests: oldLinkRequests.length,
    };
  },
});

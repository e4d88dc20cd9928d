import type { TPlan } from '@esign/contracts';
import { and, eq, gt, isNull, lt, lte, or } from 'drizzle-orm';
import type { KeyDatabase } from './key-repository';
import { accounts, sessions, signInAttempts, signInTokens } from './schema';

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
  /** Delete expired sessions (idle or absolute), expired sign-in tokens and finished attempt windows. */
  purgeExpired(input: { now: Date; idleMs: number; attemptWindowMs: number }): Promise<{
    sessions: number;
    signInTokens: number;
    signInAttempts: number;
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

  async purgeExpired({ now, idleMs, attemptWindowMs }) {
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
    return {
      sessions: expiredSessions.length,
      signInTokens: expiredTokens.length,
      signInAttempts: finishedWindows.length,
    };
  },
});

import { ServiceError, type TSessionPrincipal } from '@esign/contracts';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';

/**
 * Resolve a session token's hash to its account. A session is valid until its absolute end and until
 * `SESSION_IDLE_TIMEOUT_MS` after it was last seen; being seen moves that idle deadline, but the write
 * happens at most once per `SESSION_TOUCH_INTERVAL_MS`, so verification is a read nearly always.
 */
export const verifySession = async (options: {
  sessions: SessionRepository;
  config: TAccountLifetimes;
  now: Clock;
  tokenHash: string;
}): Promise<TSessionPrincipal> => {
  const { sessions, config } = options;
  const session = await sessions.findSession(options.tokenHash);
  const now = options.now();
  const idleEnd = (lastSeen: Date) =>
    Math.min(lastSeen.getTime() + config.SESSION_IDLE_TIMEOUT_MS, session?.expiresAt.getTime() ?? 0);
  if (!session || now.getTime() >= idleEnd(session.lastSeenAt)) {
    // An expired one is left to the periodic purge; this answer is the same either way.
    throw new ServiceError('unauthenticated', 'session is invalid or expired');
  }
  let lastSeenAt = session.lastSeenAt;
  if (now.getTime() - lastSeenAt.getTime() >= config.SESSION_TOUCH_INTERVAL_MS) {
    await sessions.touchSession(
      session.sessionId,
      now,
      new Date(now.getTime() - config.SESSION_TOUCH_INTERVAL_MS),
    );
    lastSeenAt = now;
  }
  return {
    sessionId: session.sessionId,
    accountId: session.accountId,
    email: session.email,
    plan: session.plan,
    csrfSecret: session.csrfSecret,
    expiresAt: session.expiresAt.toISOString(),
    idleExpiresAt: new Date(idleEnd(lastSeenAt)).toISOString(),
  };
};

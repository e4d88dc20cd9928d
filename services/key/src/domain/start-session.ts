import type { TNewSession } from '@esign/contracts';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';
import { generateSecretToken } from './generate-secret-token';

/**
 * Open a session for an account that has just proved who it is. The token (256 random bits) is
 * returned once and stored only as its SHA-256; the CSRF secret is stored as is (see schema.ts).
 */
export const startSession = async (options: {
  sessions: SessionRepository;
  config: TAccountLifetimes;
  now: Clock;
  accountId: string;
  userAgent?: string;
}): Promise<TNewSession> => {
  const now = options.now();
  const { token, tokenHash } = generateSecretToken();
  const csrfSecret = generateSecretToken().token;
  const expiresAt = new Date(now.getTime() + options.config.SESSION_ABSOLUTE_TIMEOUT_MS);
  const idleExpiresAt = new Date(
    Math.min(now.getTime() + options.config.SESSION_IDLE_TIMEOUT_MS, expiresAt.getTime()),
  );
  const { sessionId } = await options.sessions.createSession({
    accountId: options.accountId,
    tokenHash,
    csrfSecret,
    userAgent: options.userAgent,
    now,
    expiresAt,
  });
  return {
    sessionId,
    token,
    csrfSecret,
    expiresAt: expiresAt.toISOString(),
    idleExpiresAt: idleExpiresAt.toISOString(),
  };
};

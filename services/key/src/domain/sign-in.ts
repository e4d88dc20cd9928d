import { ServiceError, type TSignedIn } from '@esign/contracts';
import type { AccountRepository } from '../db/account-repository';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';
import { hashToken } from './generate-secret-token';
import { normalizeEmail } from './normalize-email';
import type { PasswordHasher } from './password-hasher';
import { startSession } from './start-session';

/** The one answer for an unknown email, a wrong password and an account without a password. */
const INVALID_CREDENTIALS = 'invalid email or password';

/**
 * Sign in with a password and open a session.
 *
 * - The attempt is counted (per email, known or not) before the password is checked, so concurrent
 *   guesses are all counted; past `SIGN_IN_MAX_ATTEMPTS` in a window the answer is `rate_limited`
 *   until the window ends, without hashing. A success clears the count.
 * - Unknown email, no password yet, wrong password: the same `unauthenticated` answer after one hash
 *   each (a dummy hash when there is nothing to check against).
 * - A hash made with weaker parameters than the current ones is replaced after a success.
 */
export const signIn = async (options: {
  accounts: AccountRepository;
  sessions: SessionRepository;
  passwords: PasswordHasher;
  config: TAccountLifetimes;
  now: Clock;
  email: string;
  password: string;
  userAgent?: string;
}): Promise<TSignedIn> => {
  const { accounts, passwords, config } = options;
  const email = normalizeEmail(options.email);
  const emailHash = hashToken(email);
  const { attempts, windowEndsAt } = await accounts.countSignInAttempt({
    emailHash,
    now: options.now(),
    windowMs: config.SIGN_IN_ATTEMPT_WINDOW_MS,
  });
  if (attempts > config.SIGN_IN_MAX_ATTEMPTS) {
    throw new ServiceError(
      'rate_limited',
      `too many sign-in attempts for this email; try again after ${windowEndsAt.toISOString()}`,
    );
  }
  const account = await accounts.findByEmail(email);
  const valid = await passwords.verify(options.password, account?.passwordHash);
  if (!account?.passwordHash || !valid) throw new ServiceError('unauthenticated', INVALID_CREDENTIALS);

  await accounts.clearSignInAttempts(emailHash);
  if (passwords.needsRehash(account.passwordHash)) {
    await accounts.replacePasswordHash(account.accountId, await passwords.hash(options.password));
  }
  const session = await startSession({
    sessions: options.sessions,
    config,
    now: options.now,
    accountId: account.accountId,
    userAgent: options.userAgent,
  });
  return { accountId: account.accountId, email: account.email, plan: account.plan, session };
};

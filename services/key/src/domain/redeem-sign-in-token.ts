import { ServiceError, type TSignedIn } from '@esign/contracts';
import type { AccountRepository } from '../db/account-repository';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';
import { startSession } from './start-session';

/**
 * Use a sign-in token once and open a session. Using it proves the address, so the account's email
 * counts as verified from then on. Unknown, used and expired tokens get the same answer.
 */
export const redeemSignInToken = async (options: {
  accounts: AccountRepository;
  sessions: SessionRepository;
  config: TAccountLifetimes;
  now: Clock;
  tokenHash: string;
  userAgent?: string;
}): Promise<TSignedIn> => {
  const now = options.now();
  const accountId = await options.sessions.redeemSignInToken(options.tokenHash, now);
  const account = accountId === undefined ? undefined : await options.accounts.findById(accountId);
  if (!account) throw new ServiceError('unauthenticated', 'sign-in link is invalid, used or expired');
  await options.accounts.markEmailVerified(account.accountId, now);
  const session = await startSession({
    sessions: options.sessions,
    config: options.config,
    now: options.now,
    accountId: account.accountId,
    userAgent: options.userAgent,
  });
  return { accountId: account.accountId, email: account.email, plan: account.plan, session };
};

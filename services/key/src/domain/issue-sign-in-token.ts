import type { SignInTokenIssue } from '@esign/contracts';
import type { z } from 'zod';
import type { AccountRepository } from '../db/account-repository';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';
import { generateSecretToken } from './generate-secret-token';
import { normalizeEmail } from './normalize-email';

type TIssueReply = z.input<(typeof SignInTokenIssue)['reply']>;

/**
 * A one-time sign-in token for the account with this email (256 random bits; only its SHA-256 is
 * stored; usable once within `SIGN_IN_TOKEN_TTL_MS`). Nothing is issued for an unknown email; the
 * caller answers its own client alike in both cases and mails the link off the request path.
 */
export const issueSignInToken = async (options: {
  accounts: AccountRepository;
  sessions: SessionRepository;
  config: TAccountLifetimes;
  now: Clock;
  email: string;
}): Promise<TIssueReply> => {
  const account = await options.accounts.findByEmail(normalizeEmail(options.email));
  if (!account) return { accountExists: false };
  const now = options.now();
  const expiresAt = new Date(now.getTime() + options.config.SIGN_IN_TOKEN_TTL_MS);
  const { token, tokenHash } = generateSecretToken();
  await options.sessions.createSignInToken({ accountId: account.accountId, tokenHash, now, expiresAt });
  return { accountExists: true, accountId: account.accountId, token, expiresAt: expiresAt.toISOString() };
};

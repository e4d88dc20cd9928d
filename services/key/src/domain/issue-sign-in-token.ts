import { randomUUID } from 'node:crypto';
import { ServiceError, type SignInTokenIssue } from '@esign/contracts';
import type { z } from 'zod';
import type { AccountRepository } from '../db/account-repository';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from './account-lifetimes';
import { generateSecretToken, hashToken } from './generate-secret-token';
import { normalizeEmail } from './normalize-email';

type TIssueReply = z.input<(typeof SignInTokenIssue)['reply']>;

/**
 * A one-time sign-in token for the account with this email (256 random bits; only its SHA-256 is
 * stored; usable once within `SIGN_IN_TOKEN_TTL_MS`). Nothing is issued for an unknown email; the
 * caller answers its own client alike in both cases and mails the link off the request path. At most
 * `SIGN_IN_LINK_MAX_PER_EMAIL` requests per address in `SIGN_IN_LINK_WINDOW_MS` (`rate_limited`).
 */
export const issueSignInToken = async (options: {
  accounts: AccountRepository;
  sessions: SessionRepository;
  config: TAccountLifetimes;
  now: Clock;
  email: string;
  requestId?: string;
}): Promise<TIssueReply> => {
  const email = normalizeEmail(options.email);
  const now = options.now();
  // Counted per address before the lookup, known or not: the limit says nothing about accounts.
  const requests = await options.sessions.countSignInLinkRequest({
    requestId: options.requestId ?? randomUUID(),
    emailHash: hashToken(email),
    now,
    windowMs: options.config.SIGN_IN_LINK_WINDOW_MS,
  });
  if (requests > options.config.SIGN_IN_LINK_MAX_PER_EMAIL) {
    throw new ServiceError(
      'rate_limited',
      `at most ${options.config.SIGN_IN_LINK_MAX_PER_EMAIL} sign-in links per address in ${Math.round(options.config.SIGN_IN_LINK_WINDOW_MS / 60_000)} minutes`,
    );
  }
  const account = await options.accounts.findByEmail(email);
  if (!account) return { accountExists: false };
  const expiresAt = new Date(now.getTime() + options.config.SIGN_IN_TOKEN_TTL_MS);
  const { token, tokenHash } = generateSecretToken();
  await options.sessions.createSignInToken({ accountId: account.accountId, tokenHash, now, expiresAt });
  return { accountExists: true, accountId: account.accountId, token, expiresAt: expiresAt.toISOString() };
};

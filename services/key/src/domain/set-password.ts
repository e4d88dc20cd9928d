import { ServiceError } from '@esign/contracts';
import type { AccountRepository } from '../db/account-repository';
import type { Clock } from './account-lifetimes';
import { normalizeEmail } from './normalize-email';
import type { PasswordHasher } from './password-hasher';

/**
 * Operator: set an account's password (an account made by the CLI has none; or a reset). Every session
 * of the account ends, so a reset also throws out whoever knew the old password.
 */
export const setPassword = async (options: {
  accounts: AccountRepository;
  passwords: PasswordHasher;
  now: Clock;
  email: string;
  password: string;
}): Promise<{ accountId: string; sessionsEnded: number }> => {
  const email = normalizeEmail(options.email);
  const passwordHash = await options.passwords.hash(options.password);
  const updated = await options.accounts.setPassword({ email, passwordHash, now: options.now() });
  if (!updated) throw new ServiceError('not_found', 'account not found');
  return updated;
};

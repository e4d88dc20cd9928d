import type { AccountRepository } from '../db/account-repository';
import type { Clock } from './account-lifetimes';
import { normalizeEmail } from './normalize-email';
import type { PasswordHasher } from './password-hasher';

/**
 * Create a free account with a password. Both outcomes take the same path (one hash, one insert that
 * does nothing when the email has an account) and give the same answer, so sign-up tells nobody
 * whether an address is registered. An existing account is never changed, even one without a password
 * (made by the operator CLI): otherwise anyone could claim it by signing up first.
 */
export const signUp = async (options: {
  accounts: AccountRepository;
  passwords: PasswordHasher;
  now: Clock;
  email: string;
  password: string;
}): Promise<{ accepted: true }> => {
  const email = normalizeEmail(options.email);
  const passwordHash = await options.passwords.hash(options.password);
  await options.accounts.insertWithPassword({ email, passwordHash, now: options.now() });
  return { accepted: true };
};

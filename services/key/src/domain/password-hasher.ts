import {
  createDummyPasswordHash,
  hashPassword,
  needsRehash,
  verifyPassword,
  type ScryptParams,
} from './hash-password';

/** Password hashing with the service's current parameters. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Check a password against a stored hash, or, when there is none (no account, or no password yet),
   * against a dummy hash with the same parameters, so that every answer costs one hash; false then.
   */
  verify(password: string, stored: string | null | undefined): Promise<boolean>;
  /** Whether a stored hash was made with weaker parameters than the current ones. */
  needsRehash(stored: string): boolean;
}

/** scrypt with N = 2^logN, r = 8, p = 1. */
export const createPasswordHasher = (options: { logN: number }): PasswordHasher => {
  const params: ScryptParams = { logN: options.logN, r: 8, p: 1 };
  // Made at once, so that the first unknown-email sign-in does not take two hashes' time.
  let dummy = createDummyPasswordHash(params);
  dummy.catch(() => undefined);
  return {
    hash: (password) => hashPassword(password, params),
    async verify(password, stored) {
      if (stored) return verifyPassword(password, stored);
      const against = await dummy.catch(() => {
        dummy = createDummyPasswordHash(params);
        return dummy;
      });
      await verifyPassword(password, against);
      return false;
    },
    needsRehash: (stored) => needsRehash(stored, params),
  };
};

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost: N = 2^logN, block size r, parallelism p. Stored with every hash so it can be raised later. */
export interface ScryptParams {
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/;

const derive = (password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> => {
  const N = 2 ** params.logN;
  const options: ScryptOptions = {
    N,
    r: params.r,
    p: params.p,
    // Node refuses more than 32 MiB by default; scrypt needs 128 * N * r bytes (and a little more).
    maxmem: 2 * 128 * N * params.r * params.p + 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    // NFKC so that the same password typed on two keyboards (composed or not) hashes the same.
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
};

/**
 * Hash a password with scrypt (memory-hard; runs on libuv's thread pool, not the event loop) and a
 * random salt: `$scrypt$ln=<logN>,r=<r>,p=<p>$<salt>$<hash>` (base64url).
 */
export const hashPassword = async (password: string, params: ScryptParams): Promise<string> => {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params, HASH_BYTES);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
};

interface ParsedHash {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const parseHash = (stored: string): ParsedHash | undefined => {
  const m = FORMAT.exec(stored);
  if (!m) return undefined;
  const [, logN, r, p, salt, hash] = m;
  return {
    params: { logN: Number(logN), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt ?? '', 'base64url'),
    hash: Buffer.from(hash ?? '', 'base64url'),
  };
};

/** Whether `password` matches the stored hash (constant-time comparison); false for a malformed hash. */
export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(candidate, parsed.hash);
};

/** True when a stored hash was made with weaker parameters than `current`: rehash it at the next sign-in. */
export const needsRehash = (stored: string, current: ScryptParams): boolean => {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const { logN, r, p } = parsed.params;
  return logN < current.logN || r < current.r || p < current.p;
};

/**
 * A hash of a random password with the current parameters, made once: checked against when there is
 * no account or no password, so that those answers take as long as a real check.
 */
export const createDummyPasswordHash = (params: ScryptParams): Promise<string> =>
  hashPassword(randomBytes(24).toString('base64url'), params);

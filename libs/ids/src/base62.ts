import { randomString } from './random-string';

/** Digits, then upper and lower case letters: the characters of every public random ID and API key. */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base62 characters (about 5.95 bits each: 24 give ~143 bits, 32 give ~190). */
export const randomBase62 = (length: number): string => randomString({ alphabet: BASE62, length });

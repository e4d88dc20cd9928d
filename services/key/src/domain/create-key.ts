import type { KeyCreate, TPlan } from '@esign/contracts';
import type { z } from 'zod';
import type { KeyRepository } from '../db/key-repository';
import { generateApiKey } from './generate-api-key';
import { normalizeEmail } from './normalize-email';

export type TCreateKeyReply = z.input<(typeof KeyCreate)['reply']>;

/**
 * Create an API key for the account with this email, creating the account when the email is new.
 *
 * Plans: a new account gets `plan`, or 'free' when none is given; an existing account keeps its plan
 * unless `plan` is given, in which case the plan is changed to it. The reply carries the plain key;
 * it is not kept anywhere (only its SHA-256 and its first characters are stored) and must not be logged.
 */
export const createKey = async (options: {
  keys: KeyRepository;
  email: string;
  plan?: TPlan;
  label?: string;
}): Promise<TCreateKeyReply> => {
  const email = normalizeEmail(options.email);
  const { apiKey, keyHash, prefix } = generateApiKey();
  const created = await options.keys.createKey({
    email,
    plan: options.plan,
    label: options.label?.trim() || undefined,
    keyHash,
    prefix,
  });
  return {
    accountId: created.accountId,
    accountCreated: created.accountCreated,
    plan: created.plan,
    keyId: created.keyId,
    apiKey,
    keyPrefix: prefix,
    createdAt: created.createdAt.toISOString(),
  };
};

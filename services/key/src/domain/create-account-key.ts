import { ServiceError, type AccountKeyCreate } from '@esign/contracts';
import type { z } from 'zod';
import type { KeyRepository } from '../db/key-repository';
import { generateApiKey } from './generate-api-key';

type TCreateAccountKeyReply = z.input<(typeof AccountKeyCreate)['reply']>;

/**
 * A new key for an existing account (the dashboard's "create key"). The plain key is in the reply
 * and nowhere else. Keys can be made on any plan; only Business keys pass the API's access check.
 */
export const createAccountKey = async (options: {
  keys: KeyRepository;
  accountId: string;
  name?: string;
}): Promise<TCreateAccountKeyReply> => {
  const name = options.name?.trim() || null;
  const { apiKey, keyHash, prefix } = generateApiKey();
  const created = await options.keys.createKeyForAccount({
    accountId: options.accountId,
    label: name ?? undefined,
    keyHash,
    prefix,
  });
  if (!created) throw new ServiceError('not_found', 'account not found');
  return {
    keyId: created.keyId,
    name,
    apiKey,
    keyPrefix: prefix,
    createdAt: created.createdAt.toISOString(),
  };
};

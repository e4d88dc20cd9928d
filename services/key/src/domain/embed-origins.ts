import { ServiceError, type AccountEmbedOriginsGet, type AccountEmbedOriginsSet } from '@esign/contracts';
import type { z } from 'zod';
import type { AccountRepository } from '../db/account-repository';

type TEmbedOrigins = z.input<(typeof AccountEmbedOriginsGet)['reply']>;

/** The origins allowed to frame the account's embedded signing pages (empty: embedding is off). */
export const getEmbedOrigins = async (options: {
  accounts: Pick<AccountRepository, 'findEmbedOrigins'>;
  accountId: string;
}): Promise<TEmbedOrigins> => {
  const origins = await options.accounts.findEmbedOrigins(options.accountId);
  if (!origins) throw new ServiceError('not_found', 'account not found');
  return { accountId: options.accountId, origins: [...origins] };
};

/** Replace them (already checked and normalised by the contract: exact origins, at most 10, distinct). */
export const setEmbedOrigins = async (
  options: { accounts: Pick<AccountRepository, 'setEmbedOrigins'> } & z.output<
    (typeof AccountEmbedOriginsSet)['request']
  >,
): Promise<TEmbedOrigins> => {
  const found = await options.accounts.setEmbedOrigins(options.accountId, options.origins);
  if (!found) throw new ServiceError('not_found', 'account not found');
  return { accountId: options.accountId, origins: options.origins };
};

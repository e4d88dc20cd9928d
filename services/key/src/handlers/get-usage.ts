import { endpoint, type Endpoint } from '@esign/bus';
import { AccountUsageGet } from '@esign/contracts';
import { getUsage } from '../domain/get-usage';
import type { KeyServiceDeps } from './deps';

/** `key.get-usage`: plan, limits and this month’s usage. */
export const getUsageHandler = (deps: Pick<KeyServiceDeps, 'accounts' | 'quotas' | 'now'>): Endpoint =>
  endpoint(AccountUsageGet, (request) => getUsage({ ...deps, ...request }));

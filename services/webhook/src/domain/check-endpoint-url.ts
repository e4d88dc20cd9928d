import type { BlockList } from 'node:net';
import { ServiceError } from '@esign/contracts';
import { checkTarget, TargetRefusedError, TargetUnresolvedError, type Lookup } from './ssrf';

/** Where endpoints may point: the SSRF rules, the networks the operator allows, the resolver. */
export interface TargetPolicy {
  readonly allow: BlockList;
  readonly lookup?: Lookup;
}

/**
 * Check a URL an account registers. A name that does not resolve yet is accepted (its deliveries fail
 * until it does, and are checked then); one that resolves to a refused address is `invalid_argument`.
 */
export const checkEndpointUrl = async (options: { url: string; targets: TargetPolicy }): Promise<void> => {
  try {
    await checkTarget(options.url, options.targets.allow, options.targets.lookup);
  } catch (err) {
    if (err instanceof TargetUnresolvedError) return;
    if (err instanceof TargetRefusedError) throw new ServiceError('invalid_argument', err.message, 'url');
    throw err;
  }
};

import { endpoint, type Endpoint } from '@esign/bus';
import { SignInTokenRedeem } from '@esign/contracts';
import { redeemSignInToken } from '../domain/redeem-sign-in-token';
import type { KeyServiceDeps } from './deps';

/** `key.redeem-sign-in-token`: use a sign-in token once; opens a session. */
export const redeemSignInTokenHandler = (
  deps: Pick<KeyServiceDeps, 'accounts' | 'sessions' | 'config' | 'now'>,
): Endpoint => endpoint(SignInTokenRedeem, (request) => redeemSignInToken({ ...deps, ...request }));

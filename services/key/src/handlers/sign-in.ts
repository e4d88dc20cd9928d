import { endpoint, type Endpoint } from '@esign/bus';
import { AccountSignIn } from '@esign/contracts';
import { signIn } from '../domain/sign-in';
import type { KeyServiceDeps } from './deps';

/** `key.sign-in`: password sign-in, rate-limited per email; opens a session. */
export const signInHandler = (
  deps: Pick<KeyServiceDeps, 'accounts' | 'sessions' | 'passwords' | 'config' | 'now'>,
): Endpoint => endpoint(AccountSignIn, (request) => signIn({ ...deps, ...request }));

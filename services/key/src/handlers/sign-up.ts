import { endpoint, type Endpoint } from '@esign/bus';
import { AccountSignUp } from '@esign/contracts';
import { signUp } from '../domain/sign-up';
import type { KeyServiceDeps } from './deps';

/** `key.sign-up`: the same answer whether or not the email had an account. */
export const signUpHandler = (deps: Pick<KeyServiceDeps, 'accounts' | 'passwords' | 'now'>): Endpoint =>
  endpoint(AccountSignUp, (request) => signUp({ ...deps, ...request }));

import { endpoint, type Endpoint } from '@esign/bus';
import { SignInTokenIssue } from '@esign/contracts';
import { issueSignInToken } from '../domain/issue-sign-in-token';
import type { KeyServiceDeps } from './deps';

/** `key.issue-sign-in-token`: a one-time token for an emailed sign-in link. */
export const issueSignInTokenHandler = (
  deps: Pick<KeyServiceDeps, 'accounts' | 'sessions' | 'config' | 'now'>,
): Endpoint => endpoint(SignInTokenIssue, (request) => issueSignInToken({ ...deps, ...request }));

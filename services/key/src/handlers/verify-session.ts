import { endpoint, type Endpoint } from '@esign/bus';
import { SessionVerify } from '@esign/contracts';
import { verifySession } from '../domain/verify-session';
import type { KeyServiceDeps } from './deps';

/** `key.verify-session`: session token hash -> account, sliding the idle deadline. */
export const verifySessionHandler = (deps: Pick<KeyServiceDeps, 'sessions' | 'config' | 'now'>): Endpoint =>
  endpoint(SessionVerify, (request) => verifySession({ ...deps, ...request }));

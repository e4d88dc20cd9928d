import { endpoint, type Endpoint } from '@esign/bus';
import { SessionSignOut } from '@esign/contracts';
import type { KeyServiceDeps } from './deps';

/** `key.sign-out`: delete the session; idempotent. */
export const signOutHandler = (deps: Pick<KeyServiceDeps, 'sessions'>): Endpoint =>
  endpoint(SessionSignOut, async (request) => ({
    signedOut: await deps.sessions.deleteSession(request.tokenHash),
  }));

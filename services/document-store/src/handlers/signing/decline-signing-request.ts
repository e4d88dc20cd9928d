import { endpoint, type Endpoint } from '@esign/bus';
import { SigningDecline } from '@esign/contracts';
import { declineSigningRequest } from '../../domain/signing/decline-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.decline`: the recipient declined, with the reason. Wakes the outbox relay after the commit. */
export const declineSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningDecline, async (request) => {
    const result = await declineSigningRequest(deps, request);
    deps.onWritten();
    return result;
  });

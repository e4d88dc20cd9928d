import { endpoint, type Endpoint } from '@esign/bus';
import { SigningCancel } from '@esign/contracts';
import { cancelSigningRequest } from '../../domain/signing/cancel-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.cancel`: the sender canceled a pending request. Wakes the outbox relay after the commit. */
export const cancelSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningCancel, async (request) => {
    const result = await cancelSigningRequest(deps, request);
    deps.onWritten();
    return result;
  });

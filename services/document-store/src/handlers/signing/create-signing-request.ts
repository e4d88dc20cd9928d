import { endpoint, type Endpoint } from '@esign/bus';
import { SigningCreate } from '@esign/contracts';
import { createSigningRequest } from '../../domain/signing/create-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.create`: a new signing request (its row, audit entry and `events.signing.requested`). Wakes the outbox relay after the commit. */
export const createSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningCreate, async (request) => {
    const result = await createSigningRequest(deps, request);
    deps.onWritten();
    return result;
  });

import { endpoint, type Endpoint } from '@esign/bus';
import { SigningResend } from '@esign/contracts';
import { resendSigningRequest } from '../../domain/signing/resend-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.resend`: email the link again; earlier links die with the new one. Wakes the outbox relay after the commit. */
export const resendSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningResend, async (request) => {
    const result = await resendSigningRequest(deps, request);
    deps.onWritten();
    return result;
  });

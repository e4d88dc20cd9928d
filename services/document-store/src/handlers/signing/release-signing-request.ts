import { endpoint, type Endpoint } from '@esign/bus';
import { SigningRelease } from '@esign/contracts';
import { releaseSigningRequest } from '../../domain/signing/claim-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.release`: let go of a claim whose signing failed, so the recipient can try again at once. */
export const releaseSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningRelease, (request) => releaseSigningRequest(deps, request));

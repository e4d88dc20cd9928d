import { endpoint, type Endpoint } from '@esign/bus';
import { SigningClaim } from '@esign/contracts';
import { claimSigningRequest } from '../../domain/signing/claim-signing-request';
import type { SigningHandlerDeps } from './deps';

/** `signing.claim`: one submit at a time: the request is held while the recipient's signature is made. */
export const claimSigningRequestHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningClaim, (request) => claimSigningRequest(deps, request));

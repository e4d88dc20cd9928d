import { endpoint, type Endpoint } from '@esign/bus';
import { SigningFindByToken } from '@esign/contracts';
import { findSigningRequestByToken } from '../../domain/signing/find-signing-request-by-token';
import type { SigningHandlerDeps } from './deps';

/** `signing.find-by-token`: the request a link opens, by the SHA-256 of its token. */
export const findSigningRequestByTokenHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningFindByToken, (request) => findSigningRequestByToken(deps, request));

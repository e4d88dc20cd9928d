import { endpoint, type Endpoint } from '@esign/bus';
import { SigningList } from '@esign/contracts';
import { listSigningRequests } from '../../domain/signing/list-signing-requests';
import type { SigningHandlerDeps } from './deps';

/** `signing.list`: the account's signing requests, newest first. */
export const listSigningRequestsHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningList, (request) => listSigningRequests(deps, request));

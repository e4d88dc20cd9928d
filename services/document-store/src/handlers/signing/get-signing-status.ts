import { endpoint, type Endpoint } from '@esign/bus';
import { SigningStatus } from '@esign/contracts';
import { getSigningStatus } from '../../domain/signing/get-signing-status';
import type { SigningHandlerDeps } from './deps';

/** `signing.status`: where a request stands, by audit ID or send ID. */
export const getSigningStatusHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningStatus, (request) => getSigningStatus(deps, request));

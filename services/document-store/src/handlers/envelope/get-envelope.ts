import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeGet } from '@esign/contracts';
import { getEnvelope } from '../../domain/envelope/get-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.get`: one envelope of the account. */
export const getEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeGet, (request) => getEnvelope(deps, request));

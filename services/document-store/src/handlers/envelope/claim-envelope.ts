import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeClaim } from '@esign/contracts';
import { claimEnvelope } from '../../domain/envelope/claim-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.claim`: a signer takes the envelope's head for their step (or is told to wait). */
export const claimEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeClaim, (request) => claimEnvelope(deps, request));

import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeRelease } from '@esign/contracts';
import { releaseEnvelope } from '../../domain/envelope/claim-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.release`: a signer lets go of the head after a failed step. */
export const releaseEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeRelease, (request) => releaseEnvelope(deps, request));

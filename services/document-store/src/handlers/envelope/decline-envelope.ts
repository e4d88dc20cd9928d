import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeDecline } from '@esign/contracts';
import { declineEnvelope } from '../../domain/envelope/decline-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.decline`: a signer or approver declined: the envelope ended. Wakes the outbox relay after the commit. */
export const declineEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeDecline, async (request) => {
    const result = await declineEnvelope(deps, request);
    deps.onWritten();
    return result;
  });

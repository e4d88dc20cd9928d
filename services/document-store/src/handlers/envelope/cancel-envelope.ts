import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeCancel } from '@esign/contracts';
import { cancelEnvelope } from '../../domain/envelope/cancel-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.cancel`: the sender canceled a pending envelope. Wakes the outbox relay after the commit. */
export const cancelEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeCancel, async (request) => {
    const result = await cancelEnvelope(deps, request);
    deps.onWritten();
    return result;
  });

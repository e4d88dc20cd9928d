import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeApprove } from '@esign/contracts';
import { approveEnvelope } from '../../domain/envelope/approve-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.approve`: an approver approved; the turn moves on. Wakes the outbox relay after the commit. */
export const approveEnvelopeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeApprove, async (request) => {
    const result = await approveEnvelope(deps, request);
    deps.onWritten();
    return result;
  });

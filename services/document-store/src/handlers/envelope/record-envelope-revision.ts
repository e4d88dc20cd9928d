import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeRecordRevision } from '@esign/contracts';
import { recordEnvelopeRevision } from '../../domain/envelope/record-envelope-revision';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.record-revision`: a signer's revision is the new head; the turn moves on. Wakes the outbox relay after the commit. */
export const recordEnvelopeRevisionHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeRecordRevision, async (request) => {
    const result = await recordEnvelopeRevision(deps, request);
    deps.onWritten();
    return result;
  });

import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeRecordView } from '@esign/contracts';
import { recordEnvelopeView } from '../../domain/envelope/record-envelope-view';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.record-view`: the recipient's page showed the document. Wakes the outbox relay after the commit. */
export const recordEnvelopeViewHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeRecordView, async (request) => {
    const result = await recordEnvelopeView(deps, request);
    deps.onWritten();
    return result;
  });

import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeCreate } from '@esign/contracts';
import { createEnvelope, type RevisionZeroPorts } from '../../domain/envelope/create-envelope';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.create`: a new envelope, its first group's turn opened. Wakes the outbox relay after the commit. */
export const createEnvelopeHandler = (
  deps: EnvelopeHandlerDeps & { readonly revisionZero?: RevisionZeroPorts },
): Endpoint =>
  endpoint(EnvelopeCreate, async (request) => {
    const result = await createEnvelope(deps, request);
    deps.onWritten();
    return result;
  });

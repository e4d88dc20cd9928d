import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeReplaceRecipient } from '@esign/contracts';
import { replaceEnvelopeRecipient } from '../../domain/envelope/replace-envelope-recipient';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.replace-recipient`: the sender puts another person in a recipient's place. Wakes the outbox relay after the commit. */
export const replaceEnvelopeRecipientHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeReplaceRecipient, async (request) => {
    const result = await replaceEnvelopeRecipient(deps, request);
    deps.onWritten();
    return result;
  });

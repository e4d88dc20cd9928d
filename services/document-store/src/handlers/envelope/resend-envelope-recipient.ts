import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeResendRecipient } from '@esign/contracts';
import { resendEnvelopeRecipient } from '../../domain/envelope/resend-envelope-recipient';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.resend-recipient`: the sender asks for a recipient's email again. Wakes the outbox relay after the commit. */
export const resendEnvelopeRecipientHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeResendRecipient, async (request) => {
    const result = await resendEnvelopeRecipient(deps, request);
    deps.onWritten();
    return result;
  });

import { endpoint, type Endpoint } from '@esign/bus';
import { EnvelopeRequestCode, EnvelopeSetCode, EnvelopeVerifyCode } from '@esign/contracts';
import { requestEnvelopeCode, setEnvelopeCode, verifyEnvelopeCode } from '../../domain/envelope/email-code';
import type { EnvelopeHandlerDeps } from './deps';

/** `envelope.verify-code`: a `requireEmailCode` recipient enters their one-time code. */
export const verifyEnvelopeCodeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeVerifyCode, (request) => verifyEnvelopeCode(deps, request));

/** `envelope.request-code`: a new code is asked for. Wakes the outbox relay after the commit. */
export const requestEnvelopeCodeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeRequestCode, async (request) => {
    const result = await requestEnvelopeCode(deps, request);
    deps.onWritten();
    return result;
  });

/** `envelope.set-code`: the mailer's new code for a link. */
export const setEnvelopeCodeHandler = (deps: EnvelopeHandlerDeps): Endpoint =>
  endpoint(EnvelopeSetCode, (request) => setEnvelopeCode(deps, request));

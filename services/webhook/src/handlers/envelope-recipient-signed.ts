import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientSigned } from '@esign/contracts';
import { recipientActedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.recipient-signed`: a `recipient.signed` event. */
export const envelopeRecipientSignedHandler = (
  deps: TRecordingDeps,
): EventHandler<typeof EnvelopeRecipientSigned> =>
  recordingHandler<typeof EnvelopeRecipientSigned>(deps, (payload) =>
    recipientActedEvent('recipient.signed', payload),
  );

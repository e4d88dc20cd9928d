import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientApproved } from '@esign/contracts';
import { recipientActedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.recipient-approved`: a `recipient.approved` event. */
export const envelopeRecipientApprovedHandler = (
  deps: TRecordingDeps,
): EventHandler<typeof EnvelopeRecipientApproved> =>
  recordingHandler<typeof EnvelopeRecipientApproved>(deps, (payload) =>
    recipientActedEvent('recipient.approved', payload),
  );

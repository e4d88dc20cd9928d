import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientTurn } from '@esign/contracts';
import { recipientNotifiedEvents } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.recipient-turn`: a `recipient.notified` event for a turn (none for a resend or a reminder). */
export const envelopeRecipientTurnHandler = (
  deps: TRecordingDeps,
): EventHandler<typeof EnvelopeRecipientTurn> =>
  recordingHandler<typeof EnvelopeRecipientTurn>(deps, (payload) => recipientNotifiedEvents(payload));

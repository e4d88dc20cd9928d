import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientViewed } from '@esign/contracts';
import { recipientActedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.recipient-viewed`: a `recipient.viewed` event. */
export const envelopeRecipientViewedHandler = (
  deps: TRecordingDeps,
): EventHandler<typeof EnvelopeRecipientViewed> =>
  recordingHandler<typeof EnvelopeRecipientViewed>(deps, (payload) =>
    recipientActedEvent('recipient.viewed', payload),
  );

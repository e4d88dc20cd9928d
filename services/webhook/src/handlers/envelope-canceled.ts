import type { EventHandler } from '@esign/bus';
import type { EnvelopeCanceled } from '@esign/contracts';
import { envelopeEndedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.canceled`: an `envelope.canceled` event. */
export const envelopeCanceledHandler = (deps: TRecordingDeps): EventHandler<typeof EnvelopeCanceled> =>
  recordingHandler<typeof EnvelopeCanceled>(deps, (payload) =>
    envelopeEndedEvent('envelope.canceled', payload),
  );

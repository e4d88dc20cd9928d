import type { EventHandler } from '@esign/bus';
import type { EnvelopeExpired } from '@esign/contracts';
import { envelopeEndedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.expired`: an `envelope.expired` event. */
export const envelopeExpiredHandler = (deps: TRecordingDeps): EventHandler<typeof EnvelopeExpired> =>
  recordingHandler<typeof EnvelopeExpired>(deps, (payload) =>
    envelopeEndedEvent('envelope.expired', payload),
  );

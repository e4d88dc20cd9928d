import type { EventHandler } from '@esign/bus';
import type { EnvelopeCompleted } from '@esign/contracts';
import { envelopeCompletedEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.completed`: an `envelope.completed` event (with a download link on each attempt). */
export const envelopeCompletedHandler = (deps: TRecordingDeps): EventHandler<typeof EnvelopeCompleted> =>
  recordingHandler<typeof EnvelopeCompleted>(deps, (payload) => envelopeCompletedEvent(payload));

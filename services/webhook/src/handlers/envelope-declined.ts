import type { EventHandler } from '@esign/bus';
import type { EnvelopeDeclined } from '@esign/contracts';
import { envelopeDeclinedEvents } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.declined`: `recipient.declined` and `envelope.declined` events. */
export const envelopeDeclinedHandler = (deps: TRecordingDeps): EventHandler<typeof EnvelopeDeclined> =>
  recordingHandler<typeof EnvelopeDeclined>(deps, (payload) => envelopeDeclinedEvents(payload));

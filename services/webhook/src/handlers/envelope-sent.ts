import type { EventHandler } from '@esign/bus';
import type { EnvelopeSent } from '@esign/contracts';
import { envelopeSentEvent } from '../domain/envelope-events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.envelope.sent`: an `envelope.sent` event for the account's subscribed endpoints. */
export const envelopeSentHandler = (deps: TRecordingDeps): EventHandler<typeof EnvelopeSent> =>
  recordingHandler<typeof EnvelopeSent>(deps, (payload) => envelopeSentEvent(payload));

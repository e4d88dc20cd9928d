import type { EventHandler } from '@esign/bus';
import type { SigningCompleted } from '@esign/contracts';
import { signingEvent } from '../domain/events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.signing.completed`: a `signing.completed` event for the account's subscribed endpoints. */
export const signingCompletedHandler = (deps: TRecordingDeps): EventHandler<typeof SigningCompleted> =>
  recordingHandler<typeof SigningCompleted>(deps, (payload) =>
    signingEvent({ type: 'signing.completed', ...payload }),
  );

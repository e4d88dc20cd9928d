import type { EventHandler } from '@esign/bus';
import type { SigningDeclined } from '@esign/contracts';
import { signingEvent } from '../domain/events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.signing.declined`: a `signing.declined` event for the account's subscribed endpoints. */
export const signingDeclinedHandler = (deps: TRecordingDeps): EventHandler<typeof SigningDeclined> =>
  recordingHandler<typeof SigningDeclined>(deps, (payload) =>
    signingEvent({ type: 'signing.declined', ...payload }),
  );

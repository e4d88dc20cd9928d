import type { EventHandler } from '@esign/bus';
import type { SigningExpired } from '@esign/contracts';
import { signingEvent } from '../domain/events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.signing.expired`: a `signing.expired` event for the account's subscribed endpoints. */
export const signingExpiredHandler = (deps: TRecordingDeps): EventHandler<typeof SigningExpired> =>
  recordingHandler<typeof SigningExpired>(deps, (payload) =>
    signingEvent({ type: 'signing.expired', ...payload }),
  );

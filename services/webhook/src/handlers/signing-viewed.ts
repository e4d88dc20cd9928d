import type { EventHandler } from '@esign/bus';
import type { SigningViewed } from '@esign/contracts';
import { signingEvent } from '../domain/events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.signing.viewed`: a `signing.viewed` event for the account's subscribed endpoints. */
export const signingViewedHandler = (deps: TRecordingDeps): EventHandler<typeof SigningViewed> =>
  recordingHandler<typeof SigningViewed>(deps, (payload) =>
    signingEvent({ type: 'signing.viewed', ...payload }),
  );

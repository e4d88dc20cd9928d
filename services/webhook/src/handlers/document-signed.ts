import type { EventHandler } from '@esign/bus';
import type { DocumentSigned } from '@esign/contracts';
import { documentSignedEvent } from '../domain/events';
import { recordingHandler, type TRecordingDeps } from './recording-handler';

/** `events.document.signed`: a `document.signed` event for the account's subscribed endpoints. */
export const documentSignedHandler = (deps: TRecordingDeps): EventHandler<typeof DocumentSigned> =>
  recordingHandler<typeof DocumentSigned>(deps, (payload, ctx) => documentSignedEvent(payload, ctx.msgId));

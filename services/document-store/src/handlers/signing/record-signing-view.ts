import { endpoint, type Endpoint } from '@esign/bus';
import { SigningRecordView } from '@esign/contracts';
import { recordSigningView } from '../../domain/signing/record-signing-view';
import type { SigningHandlerDeps } from './deps';

/** `signing.record-view`: the recipient's browser showed the document (the first view publishes `events.signing.viewed`). Wakes the outbox relay after the commit. */
export const recordSigningViewHandler = (deps: SigningHandlerDeps): Endpoint =>
  endpoint(SigningRecordView, async (request) => {
    const result = await recordSigningView(deps, request);
    deps.onWritten();
    return result;
  });

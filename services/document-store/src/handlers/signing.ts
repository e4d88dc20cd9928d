import { endpoint, type Endpoint } from '@esign/bus';
import {
  SigningAttachLink,
  SigningCancel,
  SigningClaim,
  SigningCreate,
  SigningDecline,
  SigningFindByToken,
  SigningList,
  SigningRecordView,
  SigningRelease,
  SigningResend,
  SigningStatus,
} from '@esign/contracts';
import { attachSigningLink } from '../domain/signing/attach-signing-link';
import { claimSigningRequest, releaseSigningRequest } from '../domain/signing/claim-signing-request';
import { cancelSigningRequest } from '../domain/signing/cancel-signing-request';
import { createSigningRequest } from '../domain/signing/create-signing-request';
import { declineSigningRequest } from '../domain/signing/decline-signing-request';
import { findSigningRequestByToken } from '../domain/signing/find-signing-request-by-token';
import { getSigningStatus } from '../domain/signing/get-signing-status';
import { listSigningRequests } from '../domain/signing/list-signing-requests';
import { recordSigningView } from '../domain/signing/record-signing-view';
import { resendSigningRequest } from '../domain/signing/resend-signing-request';
import type { SigningDeps } from '../domain/signing/signing-deps';

/**
 * The `signing.*` subjects (send for signing). Each is one call into its operation in
 * `src/domain/signing/`; those that write an event wake the outbox relay after their commit.
 */
export const signingHandlers = (
  deps: SigningDeps & { onWritten: () => void; claimMs: number },
): Endpoint[] => {
  const thenWake = <T>(result: T): T => {
    deps.onWritten();
    return result;
  };
  return [
    endpoint(SigningCreate, async (request) => thenWake(await createSigningRequest(deps, request))),
    endpoint(SigningAttachLink, (request) => attachSigningLink(deps, request)),
    endpoint(SigningFindByToken, (request) => findSigningRequestByToken(deps, request)),
    endpoint(SigningRecordView, async (request) => thenWake(await recordSigningView(deps, request))),
    endpoint(SigningDecline, async (request) => thenWake(await declineSigningRequest(deps, request))),
    endpoint(SigningCancel, async (request) => thenWake(await cancelSigningRequest(deps, request))),
    endpoint(SigningResend, async (request) => thenWake(await resendSigningRequest(deps, request))),
    endpoint(SigningStatus, (request) => getSigningStatus(deps, request)),
    endpoint(SigningList, (request) => listSigningRequests(deps, request)),
    endpoint(SigningClaim, (request) => claimSigningRequest(deps, request)),
    endpoint(SigningRelease, (request) => releaseSigningRequest(deps, request)),
  ];
};

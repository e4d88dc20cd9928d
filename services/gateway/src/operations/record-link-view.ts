import { explainConflict } from './sign-through-link';
import type { SigningLinkPorts, TRecordedView } from './signing-link-ports';

export interface RecordLinkViewInput {
  readonly tokenHash: string;
  readonly ipAddress: string;
  readonly userAgent: string;
}

/**
 * The signing page showed the document: document-store sets viewedAt the first time and logs every
 * view in the audit trail. A request that ended meanwhile is `LinkEndedError` (410).
 */
export const recordLinkView = (ports: SigningLinkPorts, input: RecordLinkViewInput): Promise<TRecordedView> =>
  ports
    .recordView({
      tokenHash: input.tokenHash,
      // The contract's limits: a longer header is cut, not refused.
      ipAddress: input.ipAddress.slice(0, 100),
      userAgent: input.userAgent.slice(0, 1000),
    })
    .catch((err: unknown) => explainConflict(ports, input.tokenHash, err));

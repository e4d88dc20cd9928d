import { explainConflict } from './sign-through-link';
import type { SigningLinkPorts, TDeclined } from './signing-link-ports';

export interface DeclineThroughLinkInput {
  readonly tokenHash: string;
  /** Why the recipient declines (required; the sender is told). */
  readonly reason: string;
  readonly ipAddress: string;
  readonly userAgent: string;
}

/**
 * The recipient declines from the signing page: the request becomes `declined` and its links die.
 * A request that ended meanwhile is `LinkEndedError` (410); one being signed is a `conflict` explained.
 */
export const declineThroughLink = async (
  ports: SigningLinkPorts,
  input: DeclineThroughLinkInput,
): Promise<TDeclined> => {
  const declined = await ports
    .decline({
      tokenHash: input.tokenHash,
      reason: input.reason,
      // The contract's limits: a longer header is cut, not refused.
      ipAddress: input.ipAddress.slice(0, 100),
      userAgent: input.userAgent.slice(0, 1000),
    })
    .catch((err: unknown) => explainConflict(ports, input.tokenHash, err));
  ports.logger.info('declined through a signing link', { sendId: declined.sendId });
  return declined;
};

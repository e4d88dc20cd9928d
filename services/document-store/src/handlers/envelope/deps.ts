import type { EnvelopeDeps } from '../../domain/envelope/envelope-deps';

/** What the `envelope.*` handlers use: the operations' deps, the head's lease, and a wake-up for the outbox relay. */
export interface EnvelopeHandlerDeps extends EnvelopeDeps {
  /** Called after a commit that wrote an event to the outbox. */
  readonly onWritten: () => void;
  /** How long `envelope.claim` holds the head (SIGNING_CLAIM_MS). */
  readonly claimMs: number;
}

import type { SigningDeps } from '../../domain/signing/signing-deps';

/** What the `signing.*` handlers use: the operations' deps, and a wake-up for the outbox relay. */
export interface SigningHandlerDeps extends SigningDeps {
  /** Called after a commit that wrote an event to the outbox. */
  readonly onWritten: () => void;
  readonly claimMs: number;
}

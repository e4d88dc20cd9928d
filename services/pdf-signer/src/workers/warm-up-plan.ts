import type { TPadesLevel } from '../domain/assemble-signer';

/** A signing worker's start-up warm-up (`SIGN_WARM_UP_MS`). */
export interface SignWarmUp {
  /** How long it may sign for (ms); 0: no warm-up. At least one signing runs otherwise. */
  readonly budgetMs: number;
  /** Signings at most, however fast they go. */
  readonly maxSignings: number;
  /** The service's PAdES level (its DSS update is warmed too; B-LTA is warmed as B-LT: no TSA). */
  readonly padesLevel?: TPadesLevel;
  /** PUBLIC_BASE_URL: the audit page's verification address and QR code, as every signing has. */
  readonly verifyBaseUrl?: string;
}

/** What a warm-up did. */
export interface WarmedUp {
  readonly ms: number;
  readonly signings: number;
}

/**
 * Signings at most per warm-up: CPU per signing in a fresh isolate falls from ~7 ms to its steady
 * ~2-2.5 ms over the first 150-300 (V8 optimising the signing code), then stays.
 */
export const WARM_UP_MAX_SIGNINGS = 300;

/**
 * Signings the main thread sends through the pool at start-up: its part of a request (the contract
 * check, the hand-off to a worker and back, a read from object storage) is small, and the workers are
 * warm by then, so a few dozen cost little.
 */
export const MAIN_THREAD_WARM_UP_SIGNINGS = 100;

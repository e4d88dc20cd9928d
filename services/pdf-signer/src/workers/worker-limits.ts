import { setFlagsFromString } from 'node:v8';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * The young generation (V8's new space: two semi-spaces and the large-object new space) of every
 * signing and verification worker unless SIGN_WORKER_YOUNG_MB says otherwise, in MB. A signing's
 * short-lived objects die there (a 1-page signing allocates about 0.5 MB of them).
 */
export const WORKER_YOUNG_GENERATION_MB = 12;

/** SIGN_WORKER_HEAP_MB's default: a signing worker's old-generation cap, in MB. */
export const DEFAULT_WORKER_HEAP_MB = 256;

/**
 * The `resourceLimits` of a worker: its old generation capped at `heapMb` (past it the worker dies
 * with ERR_WORKER_OUT_OF_MEMORY, which the pools answer with a 400) and its young generation set to
 * `youngMb` (default WORKER_YOUNG_GENERATION_MB; 0 leaves it to V8).
 *
 * Why the young generation is set: left to V8, it is sized from the memory the process sees (48 MB,
 * 16 MB semi-spaces, on a machine with 16 GB or more), while a 256 MB old-generation cap makes V8 let
 * the old generation grow to only about 1.3-1.7x its live size after a major GC (the factor reaches 4
 * only for caps of 2 GB or more). V8 starts incremental marking as soon as the old generation's free
 * room is smaller than the new space; with the worker's ~37 MB live (fonts, compiled code, caches)
 * that room (11-26 MB) was never larger, so a worker signing one-page documents ran a full
 * mark-compact every 150-250 ms whatever it allocated: 4-6 per 200 signings against 1-2 with a 12 MB
 * young generation (`--trace-gc --trace-incremental-marking`; docs/performance.md has the runs). In a
 * pod with a memory limit Node sizes the young generation from that limit instead, so setting it
 * also makes a worker collect the same way on a laptop, in CI and in the cluster.
 */
export const workerResourceLimits = (
  heapMb: number,
  youngMb: number = WORKER_YOUNG_GENERATION_MB,
): ResourceLimits => ({
  maxOldGenerationSizeMb: heapMb,
  ...(youngMb > 0 ? { maxYoungGenerationSizeMb: youngMb } : {}),
});

/**
 * How far past its live size a heap of this process may grow after a major collection before the
 * next, in percent, unless SIGN_HEAP_GROWING_PERCENT says otherwise: 100 = twice the live size.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Set V8's heap growing factor for every heap of this process (0 leaves it to V8). Left to V8, a
 * worker's 256 MB old-generation cap gives a factor of about 1.3-1.4: its ~47 MB live (compiled code,
 * fonts, caches) left ~16 MB of room, which what signings promote filled every few dozen signings,
 * each time a full mark-compact of the whole heap. In a signing worker as the pool starts it, a
 * 1-page B-B signing cost 1.42-1.44 ms of CPU with V8's factor and 1.20 with twice the live size
 * (alternated runs of 4,000; docs/performance.md, issue 26's sixth step). The cap itself is
 * unchanged, so is what a pod may use at most. V8 reads the flag whenever it sizes a heap, so this
 * runs once at start-up, before the first worker.
 */
export const setHeapGrowingPercent = (percent: number): void => {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
};

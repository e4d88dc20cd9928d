/** The most requests the gateway's start-up rehearsal sends itself (WARM_UP_MS). */
export const WARM_UP_MAX_REQUESTS = 400;
/** How many of them are in flight at once, as a few clients would have them. */
export const WARM_UP_CONCURRENCY = 4;

/**
 * When the attempt after the `attempts`-th failed one is due, or null when the schedule is spent:
 * `schedule[attempts - 1]` from now, ±20 % jitter (so that the retries of many deliveries that failed
 * together, say during the receiver's outage, do not all come back at the same instant).
 */
export const nextAttemptAt = (
  schedule: readonly number[],
  attempts: number,
  now: Date,
  random: () => number = Math.random,
): Date | null => {
  const base = schedule[attempts - 1];
  if (base === undefined) return null;
  return new Date(now.getTime() + Math.round(base * (0.8 + 0.4 * random())));
};

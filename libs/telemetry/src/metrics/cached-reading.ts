/**
 * A reading shared by the gauges that report parts of it (a count and an age from one query), and by
 * scrapes close together: `read` runs at most once per `maxAgeMs`, callers meanwhile get the last
 * result, and callers during a read wait for that read. A failed read is not kept: the next caller
 * tries again (and a gauge that gets the rejection reports nothing for that scrape).
 */
export const cachedReading = <T>(options: {
  read: () => Promise<T>;
  maxAgeMs: number;
  now?: () => number;
}): (() => Promise<T>) => {
  const now = options.now ?? Date.now;
  let last: { value: T; at: number } | undefined;
  let reading: Promise<T> | undefined;
  return () => {
    if (last && now() - last.at < options.maxAgeMs) return Promise.resolve(last.value);
    reading ??= options
      .read()
      .then((value) => {
        last = { value, at: now() };
        return value;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
};

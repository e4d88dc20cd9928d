const LONE_SURROGATE = /\p{Cs}/u;

/**
 * NUL is refused by Postgres text and jsonb; a lone UTF-16 surrogate would be stored as U+FFFD, so
 * the audit hash computed over the original would no longer match what is read back.
 */
const isUnstorable = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);

/** The keys down to the first unstorable string or key, outermost first; made only when one is found. */
const findUnstorablePath = (value: unknown): (string | number)[] | undefined => {
  if (typeof value === 'string') return isUnstorable(value) ? [] : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = findUnstorablePath(value[i]);
      if (found) return [i, ...found];
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (isUnstorable(key)) return [key];
    const found = findUnstorablePath(record[key]);
    if (found) return [key, ...found];
  }
  return undefined;
};

/**
 * The path (`events.0.details.note`) of the first string or object key Postgres cannot store as it
 * was sent, `(value)` when `value` itself is such a string, or undefined when everything is storable.
 */
export const findUnstorableText = (value: unknown): string | undefined => {
  const path = findUnstorablePath(value);
  if (path === undefined) return undefined;
  return path.length > 0 ? path.join('.') : '(value)';
};

/**
 * The path of the first string (or object key) Postgres cannot store as it was sent, or undefined.
 * NUL is refused by Postgres text and jsonb; a lone UTF-16 surrogate would be stored as U+FFFD, so
 * the audit hash computed over the original would no longer match what is read back.
 */
export const findUnstorableText = (value: unknown, path = ''): string | undefined => {
  const bad = (s: string) => s.includes('\u0000') || /\p{Cs}/u.test(s);
  if (typeof value === 'string') return bad(value) ? path || '(value)' : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnstorableText(item, path ? `${path}.${i}` : String(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (bad(key)) return at;
      const found = findUnstorableText(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
};

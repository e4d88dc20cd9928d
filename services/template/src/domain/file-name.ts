/**
 * A file name from filled values: letters and digits of any script are kept, every other run of
 * characters becomes one hyphen, so that no value can add a path, a dot, quotes or control characters.
 */
export const toFileName = (stem: string, maxLength = 120): string => {
  const cleaned = stem
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N}_]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const cut = [...cleaned].slice(0, maxLength).join('').replace(/-+$/g, '');
  return `${cut || 'document'}.pdf`;
};

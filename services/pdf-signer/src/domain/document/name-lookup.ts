import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFName } from 'pdf-lib';

/**
 * `PDFName.of` without its regular expression: pdf-lib decodes #-escapes with a `replace` on every
 * call before it looks the name up in its pool, and signing one document calls it a few hundred
 * times (its own page, font and form code, and ours) with the same few dozen names. Names are
 * looked up here by the string asked for; the values are pdf-lib's pooled instances (it keeps every
 * name for the life of the process), so the same string gives the same instance as before. Bounded.
 */
// The build of pdf-lib that Node loads (its "main": CommonJS), whose names the signer uses.
const { PDFName: Name } = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;

const MAX_NAMES = 4096;
const known = new Map<string, PDFName>();
const original = Name.of.bind(Name);

Name.of = function of(name: string): PDFName {
  let found = known.get(name);
  if (!found) {
    found = original(name);
    if (known.size >= MAX_NAMES) known.clear();
    known.set(name, found);
  }
  return found;
};

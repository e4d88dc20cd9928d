import { PDFArray, PDFDict, PDFName } from 'pdf-lib';
import type { PDFDocument, PDFObject, PDFRef } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import { isChanged, trackChanges } from './track-changes';
import type { ChangeLog } from './track-changes';

/**
 * A document that already carries digital signatures is signed by appending to it (an incremental
 * update: the changed and new objects, a cross-reference section and a trailer pointing back to the
 * previous one), never by rewriting it: the earlier signatures cover the original bytes, which stay
 * exactly as they were, so they still verify.
 */
export interface UpdateBase {
  /** The original file, written first and unchanged. */
  readonly bytes: Buffer;
  /** Offset of the original's last cross-reference section (its `startxref`). */
  readonly previousXref: number;
  /** What changed since loading (see `track-changes`): only new and changed objects are written. */
  readonly changes: ChangeLog;
}

const SIG = PDFName.of('Sig');
const FT = PDFName.of('FT');
const V = PDFName.of('V');
const KIDS = PDFName.of('Kids');
const FIELDS = PDFName.of('Fields');
const PERMS = PDFName.of('Perms');
const DOC_MDP = PDFName.of('DocMDP');
const STARTXREF = Buffer.from('startxref', 'latin1');

/** True when the update must write `ref`, whose object is now `object`: new, or changed since loading. */
export const isWrittenBy = (base: UpdateBase, ref: PDFRef, object: PDFObject): boolean =>
  isChanged(base.changes, ref, object);

/** Signature fields of the form that hold a signature (a /V), however deep the field tree goes. */
export const countSignatures = (doc: PDFDocument): number => {
  // Looked up without a type, which would throw: a form or field list of another type has no fields.
  const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'));
  const fields = acroForm instanceof PDFDict ? acroForm.lookup(FIELDS) : undefined;
  if (!(fields instanceof PDFArray)) return 0;
  let count = 0;
  const seen = new Set<PDFDict>();
  const visit = (array: PDFArray, inheritedSig: boolean) => {
    for (let i = 0; i < array.size(); i++) {
      const field = array.lookup(i);
      if (!(field instanceof PDFDict) || seen.has(field)) continue;
      seen.add(field);
      const isSig = field.get(FT) === SIG || (field.get(FT) === undefined && inheritedSig);
      if (isSig && field.get(V) !== undefined) count += 1;
      const kids = field.lookup(KIDS);
      if (kids instanceof PDFArray) visit(kids, isSig);
    }
  };
  visit(fields, false);
  return count;
};

/**
 * Prepare to sign a document that is already signed: refuse a certified one (its author allowed no
 * pages or content to be added, which signing here does), find its last cross-reference section, and
 * start recording which objects change from now on.
 */
export const prepareIncrementalUpdate = (doc: PDFDocument, bytes: Buffer): UpdateBase => {
  if (doc.catalog.lookupMaybe(PERMS, PDFDict)?.get(DOC_MDP) !== undefined) {
    throw new ServiceError(
      'invalid_argument',
      'file: the PDF is certified by its author (DocMDP), which forbids adding the signature and audit page',
      'file',
    );
  }
  const at = bytes.lastIndexOf(STARTXREF);
  const previousXref =
    at < 0 ? NaN : Number(/^\s*(\d+)/.exec(bytes.toString('latin1', at + 9, at + 40))?.[1]);
  if (!Number.isSafeInteger(previousXref) || previousXref >= bytes.length) {
    throw new ServiceError(
      'invalid_argument',
      'file: the PDF is signed but damaged (its last startxref is missing or wrong), so it cannot be countersigned',
      'file',
    );
  }
  // New objects must not take a number the original uses, its object and cross-reference streams
  // included (pdf-lib does not count those): start above the largest /Size of the last section.
  const sizes = [...bytes.toString('latin1', previousXref, at).matchAll(/\/Size\s+(\d+)/g)].map((m) =>
    Number(m[1]),
  );
  doc.context.largestObjectNumber = Math.max(doc.context.largestObjectNumber, ...sizes.map((n) => n - 1));
  return { bytes, previousXref, changes: trackChanges(doc.context) };
};

import { ServiceError } from '@esign/contracts';

// pdf-lib's error classes are compiled to ES5, where subclasses of Error lose their prototype:
// `instanceof EncryptedPDFError` is always false. Their messages are what identifies them.
const PDF_LIB_MESSAGES = [
  /^Expected instance of /,
  /^Missing catalog/,
  /corrupt page tree/,
  /^Invalid targetIndex/,
  /^index should be at least/,
  /^Attempted to convert PDFArray/,
  /^Failed to parse/,
  /^Unrecognized stream type/,
  /stream encoding not supported/,
];

/** A stack frame in the PDF library or the inflater it uses, however it was installed or mapped. */
const LIBRARY_FRAME = /[\\/](pdf-lib|pako)[\\/]/;

/**
 * Whether an error is the PDF library failing on the document it was given rather than a fault of
 * ours: one of pdf-lib's own errors, any error thrown inside pdf-lib (a `TypeError` where a damaged
 * file has a number in place of an array, say: pdf-lib checks types lazily, so a hostile file can
 * load and fail later), or a stack overflow on a cyclic structure. Errors thrown in our own code keep
 * their meaning (a bug, answered as `internal` and logged).
 */
export const isPdfLibraryFailure = (err: unknown): boolean => {
  if (!(err instanceof Error)) return false;
  if (err instanceof RangeError) return true;
  if (PDF_LIB_MESSAGES.some((re) => re.test(err.message))) return true;
  const firstFrame = err.stack?.split('\n').find((line) => line.trimStart().startsWith('at '));
  return firstFrame !== undefined && LIBRARY_FRAME.test(firstFrame);
};

/** The request error for an uploaded PDF, message first naming the field. */
export const invalidFile = (message: string): ServiceError =>
  new ServiceError('invalid_argument', `file: ${message}`, 'file');

/** The request error for a PDF that loaded but whose structure broke while it was being signed. */
export const damagedDocument = (): ServiceError =>
  invalidFile('the PDF is damaged (its structure is inconsistent) and cannot be signed');

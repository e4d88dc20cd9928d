import { ParseSpeeds, PDFDocument } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import { DecodeBudgetExceeded, withDecodeBudget } from './decode-budget';

const HEADER = Buffer.from('%PDF-', 'latin1');
const EOF_MARKER = Buffer.from('%%EOF', 'latin1');

// pdf-lib's error classes are compiled to ES5, where subclasses of Error lose their prototype:
// `instanceof EncryptedPDFError` is always false. Their messages are what identifies them.
const ENCRYPTED_MESSAGE = /is encrypted/;
const DAMAGED_MESSAGES = [
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

const ENCRYPT_KEY = Buffer.from('/Encrypt', 'latin1');

/**
 * Most that parsing one upload may inflate (object and cross-reference streams). Real documents need
 * a small fraction of it: their object streams hold dictionaries, not page content or images.
 */
export const MAX_DECODED_BYTES = 128 * 1024 * 1024;

const invalidFile = (message: string) => new ServiceError('invalid_argument', `file: ${message}`, 'file');

const encrypted = () =>
  new ServiceError('invalid_argument', 'file: encrypted PDFs are not supported', 'file');

/**
 * Whether a trailer names an encryption dictionary. Trailers (classic or xref-stream dictionaries)
 * sit at the end, or near the start of a linearised file; pdf-lib cannot parse an encrypted file
 * whose objects hide in encrypted object streams, so it fails before it can say why.
 */
const mentionsEncryption = (bytes: Buffer): boolean =>
  bytes.subarray(0, 16 * 1024).indexOf(ENCRYPT_KEY) >= 0 ||
  bytes.subarray(Math.max(0, bytes.length - 16 * 1024)).indexOf(ENCRYPT_KEY) >= 0;

let quietLoads = 0;
let consoleWarn: typeof console.warn = console.warn;

/**
 * Run a load with console.warn muted: pdf-lib's parser prints a line for every damaged object it
 * skips, which would litter the service's JSON logs; the outcome of the load says enough. Counted,
 * so that overlapping loads restore the real console.warn only when the last one ends.
 */
const quietly = async <T>(load: () => Promise<T>): Promise<T> => {
  if (quietLoads++ === 0) {
    consoleWarn = console.warn;
    console.warn = () => undefined;
  }
  try {
    return await load();
  } finally {
    if (--quietLoads === 0) console.warn = consoleWarn;
  }
};

/**
 * Load an uploaded PDF for signing. Anything that is not a whole, readable, unencrypted PDF with at
 * least one page is the caller's fault (invalid_argument on `file`), never an internal error: the
 * header and the end-of-file marker are checked first (a truncated upload fails fast), then parse
 * errors and an empty page tree.
 */
export const loadPdf = async (bytes: Buffer): Promise<PDFDocument> => {
  // Files may carry junk before the header; readers accept it within the first kilobyte.
  const headerAt = bytes.subarray(0, 1024).indexOf(HEADER);
  if (headerAt < 0) throw invalidFile('not a PDF (no %PDF- header)');
  if (bytes.subarray(Math.max(0, bytes.length - 1024)).indexOf(EOF_MARKER) < 0) {
    throw invalidFile('the PDF is truncated or damaged (no %%EOF marker at its end)');
  }
  let doc: PDFDocument;
  try {
    doc = await withDecodeBudget(MAX_DECODED_BYTES, () =>
      quietly(() =>
        PDFDocument.load(bytes, {
          // Fastest = parse every object in one go (objects per tick: Infinity).
          parseSpeed: ParseSpeeds.Fastest,
          updateMetadata: false,
          throwOnInvalidObject: false,
        }),
      ),
    );
  } catch (err) {
    if (err instanceof DecodeBudgetExceeded) {
      throw invalidFile(
        `the PDF's compressed objects inflate to more than ${MAX_DECODED_BYTES / 1024 / 1024} MB (a decompression bomb?)`,
      );
    }
    if ((err instanceof Error && ENCRYPTED_MESSAGE.test(err.message)) || mentionsEncryption(bytes))
      throw encrypted();
    throw invalidFile('the PDF is damaged and cannot be read');
  }
  let pageCount: number;
  try {
    // Walking the page tree finds broken or cyclic trees (a cycle ends in a RangeError, not a hang).
    pageCount = doc.getPages().length;
  } catch {
    throw mentionsEncryption(bytes)
      ? encrypted()
      : invalidFile('the PDF is damaged (its page tree cannot be read)');
  }
  if (pageCount === 0) throw mentionsEncryption(bytes) ? encrypted() : invalidFile('the PDF has no pages');
  return doc;
};

/**
 * Whether an error thrown while working on a loaded PDF comes from the document's own structure
 * (a required entry of the wrong type, a cyclic tree that overflows the stack) rather than from a
 * fault of ours: pdf-lib checks types lazily, so a damaged file can load and fail later.
 */
export const isDamagedDocumentError = (err: unknown): boolean =>
  err instanceof RangeError || (err instanceof Error && DAMAGED_MESSAGES.some((re) => re.test(err.message)));

/** The request error for a PDF that loaded but whose structure broke while it was being signed. */
export const damagedDocument = (): ServiceError =>
  invalidFile('the PDF is damaged (its structure is inconsistent) and cannot be signed');

import { ParseSpeeds, PDFDocument } from 'pdf-lib';
import type { ServiceError } from '@esign/contracts';
import { invalidFile } from './classify-pdf-failure';
import { DecodeBudgetExceeded, withDecodeBudget } from './decode-budget';
import './fast-parse';
import { mendPageTreeForLoading } from './mend-document';
import { repairPdf } from './repair-pdf';
import type { RepairFailure } from './repair-pdf';

const HEADER = Buffer.from('%PDF-', 'latin1');
const EOF_MARKER = Buffer.from('%%EOF', 'latin1');
const ENCRYPTED_MESSAGE = /is encrypted/;

/**
 * Most that parsing one upload may inflate (object and cross-reference streams). Real documents need
 * a small fraction of it: their object streams hold dictionaries, not page content or images.
 */
export const MAX_DECODED_BYTES = 128 * 1024 * 1024;

/** Why an upload had to be rewritten by qpdf before it could be signed. */
export type RepairReason =
  /** Encrypted with an owner password only: it opens without a password, and is decrypted. */
  | 'encrypted'
  /** pdf-lib could not parse it (a damaged cross-reference table, bad objects, …). */
  | 'unreadable'
  /** pdf-lib parsed it but could not walk its page tree. */
  | 'page-tree'
  /** pdf-lib found no pages (an unreadable page tree can look empty). */
  | 'no-pages'
  /** The `%PDF-` header comes after the first kilobyte, where pdf-lib does not look. */
  | 'late-header';

/** A loaded upload; `repaired` says why it was rewritten first, when it was. */
export interface LoadedPdf {
  readonly doc: PDFDocument;
  readonly repaired?: RepairReason;
}

/** Where the fallback reports what it did: no user data, only reasons, outcomes and timings. */
export type RepairLog = (message: string, fields: Record<string, string | number | boolean>) => void;

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

const bomb = () =>
  invalidFile(
    `the PDF's compressed objects inflate to more than ${MAX_DECODED_BYTES / 1024 / 1024} MB (a decompression bomb?)`,
  );

/**
 * Parse with pdf-lib: the document with its pages, or why it cannot be used as it is. `rewritten`:
 * the bytes are qpdf's, so the document is written anew and its page tree may be mended here.
 */
const parse = async (
  bytes: Buffer,
  rewritten = false,
): Promise<{ doc: PDFDocument } | { problem: RepairReason }> => {
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
    // Not worth a second try elsewhere: qpdf would inflate the same streams.
    if (err instanceof DecodeBudgetExceeded) throw bomb();
    return {
      problem: err instanceof Error && ENCRYPTED_MESSAGE.test(err.message) ? 'encrypted' : 'unreadable',
    };
  }
  try {
    if (rewritten) mendPageTreeForLoading(doc);
    // Walking the page tree finds broken or cyclic trees (a cycle ends in a RangeError, not a hang).
    if (doc.getPages().length === 0) return { problem: 'no-pages' };
  } catch {
    return { problem: 'page-tree' };
  }
  return { doc };
};

/** What to tell the caller when neither pdf-lib nor qpdf gave a document with pages. */
const refusal = (problem: RepairReason, failure?: RepairFailure): ServiceError => {
  if (failure === 'password') {
    return invalidFile(
      'the PDF is password-protected (it needs a password to open); remove the password and upload it again',
    );
  }
  if (failure === 'timeout') return invalidFile('the PDF is too damaged to be repaired in reasonable time');
  if (failure === 'too-large') return invalidFile('the PDF is too large once repaired');
  if (failure === 'unavailable') {
    // The operator has not installed qpdf (logged at start-up): the file is refused as pdf-lib saw it.
    return problem === 'encrypted'
      ? invalidFile('encrypted PDFs cannot be signed here')
      : invalidFile('the PDF is damaged and cannot be read');
  }
  if (failure === 'unreadable' && problem === 'encrypted') {
    return invalidFile(
      'the PDF is encrypted and could not be decrypted (it is damaged, or its encryption is unknown)',
    );
  }
  if (problem === 'page-tree' && !failure) {
    return invalidFile("the PDF's page tree is damaged and could not be repaired");
  }
  if (problem === 'no-pages') return invalidFile('the PDF has no pages');
  return invalidFile('the PDF is damaged and could not be repaired');
};

/**
 * Load an uploaded PDF for signing. Anything that is not a readable PDF with at least one page is
 * the caller's fault (invalid_argument on `file`), never an internal error. pdf-lib reads it first;
 * a file it cannot use (encrypted with an owner password only, a damaged cross-reference table or
 * page tree, a header after the first kilobyte) is rewritten by qpdf and read again, and then says
 * why in `repaired`. A file with no `%PDF-` header or no `%%EOF` marker anywhere is refused at once:
 * it is not a PDF, or it was cut short, and signing what is left of it would sign less than its
 * author wrote.
 */
export const loadPdf = async (bytes: Buffer, options: { log?: RepairLog } = {}): Promise<LoadedPdf> => {
  const headerAt = bytes.indexOf(HEADER);
  if (headerAt < 0) throw invalidFile('not a PDF (no %PDF- header)');
  if (bytes.lastIndexOf(EOF_MARKER) < 0) {
    throw invalidFile('the PDF is truncated or damaged (it has no %%EOF end-of-file marker)');
  }
  // Readers accept junk before the header within the first kilobyte; pdf-lib finds it there too.
  const first = headerAt < 1024 ? await parse(bytes) : { problem: 'late-header' as const };
  if ('doc' in first) return { doc: first.doc };
  if (first.problem === 'late-header') {
    // Junk put in front of a finished file (by a mail program, a scanner): its offsets count from the
    // header, as readers that find a late header assume. qpdf cannot rebuild such a file when its
    // cross-reference is a stream, so the file from its header on is tried first.
    const fromHeader = await parse(bytes.subarray(headerAt));
    if ('doc' in fromHeader) {
      options.log?.('pdf read from its late header before signing', {
        reason: first.problem,
        skipped: headerAt,
      });
      return { doc: fromHeader.doc, repaired: first.problem };
    }
  }

  const started = performance.now();
  const repair = await repairPdf(bytes);
  let second: Awaited<ReturnType<typeof parse>> | undefined;
  try {
    second = repair.ok ? await parse(repair.bytes, true) : undefined;
  } finally {
    // Logged whatever happens (the rewritten file may still be a decompression bomb).
    options.log?.('pdf rewritten by qpdf before signing', {
      reason: first.problem,
      outcome: second && 'doc' in second ? 'repaired' : repair.ok ? 'still unusable' : repair.failure,
      ms: Math.round(performance.now() - started),
    });
  }
  if (!second) throw refusal(first.problem, repair.ok ? undefined : repair.failure);
  if ('problem' in second) {
    throw refusal(
      second.problem === 'no-pages' || second.problem === 'page-tree' ? second.problem : 'unreadable',
    );
  }
  return { doc: second.doc, repaired: first.problem };
};

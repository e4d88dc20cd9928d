import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFFlateStream, PDFHexString, PDFHeader, PDFName, PDFNumber, PDFStream } from 'pdf-lib';
import type { PDFContext, PDFObject, PDFRef } from 'pdf-lib';
import { isWrittenBy, type UpdateBase } from './incremental-update';
import './fast-write';
import { pristineBytesOf } from './pristine-objects';

/** An object whose bytes the caller writes itself (the signature dictionary), and where they landed. */
export interface VerbatimObject {
  readonly ref: PDFRef;
  /** Its bytes, laid out once the file's size and this object's offset are known. */
  render(layout: { offset: number; fileSize: number }): Buffer;
  /** Length of `render`'s result, which must not depend on the layout. */
  readonly size: number;
}

const ASCII = 'latin1';

interface Entry {
  readonly ref: PDFRef;
  readonly head: string;
  readonly object?: PDFObject;
  /** An object read from the upload and unchanged: its bytes there. */
  readonly pristine?: Uint8Array;
  readonly stream?: { dict: PDFObject; contents: Uint8Array };
  readonly verbatim?: VerbatimObject;
  readonly size: number;
}

/** Streams pdf-lib would deflate that are shorter than this are written as they are. */
const STORE_BELOW_BYTES = 1024;

const FILTER = PDFName.of('Filter');
const FLATE_DECODE = PDFName.of('FlateDecode');
const LENGTH = PDFName.of('Length');

/**
 * A stream's bytes, its /Length set to match. pdf-lib's own content streams (the q/Q pair that wraps
 * a page's old content, one byte each) deflate themselves with pako in JavaScript, which costs a
 * fresh compressor state each: small ones are stored as they are, larger ones deflated by node:zlib.
 */
const streamContents = (object: PDFStream): Uint8Array => {
  if (object instanceof PDFFlateStream && object.dict.get(FILTER) === FLATE_DECODE) {
    const raw = object.getUnencodedContents();
    let contents: Uint8Array = raw;
    if (raw.length < STORE_BELOW_BYTES) object.dict.delete(FILTER);
    else contents = deflateSync(raw);
    object.dict.set(LENGTH, PDFNumber.of(contents.length));
    return contents;
  }
  object.updateDict();
  return object.getContents();
};

/**
 * Write the whole document as a classic PDF (no object streams, one cross-reference table) into
 * one exactly sized buffer; an object read from the upload that nothing has changed is written as
 * its bytes there (`pristine-objects.ts`). pdf-lib's own writer copies stream data one byte at a time (about 130 ms
 * for 20 MB of images); this one copies streams with `Buffer.set`, and lets the caller place one
 * object byte-exactly, which is what a signature placeholder needs.
 *
 * With `base` (a document that is already signed), the original file is written first, byte for
 * byte, followed by an incremental update: only the objects that are new or changed, a
 * cross-reference section for them, and a trailer whose /Prev points to the original's last one.
 *
 * With `spareBytes`, the file is a view at the start of a buffer that many bytes longer, so that an
 * update appended later (the DSS of PAdES B-LT) can be written after it without copying the file.
 *
 * Returns the file and the offset of the verbatim object.
 */
export const serializePdf = (
  context: PDFContext,
  verbatim: VerbatimObject | undefined,
  base?: UpdateBase,
  spareBytes = 0,
): { file: Buffer; verbatimOffset: number } => {
  const header = PDFHeader.forVersion(1, 7);
  // An update starts on a line of its own after the original's %%EOF.
  const separator = base && !/[\r\n]$/.test(base.bytes.toString('latin1', base.bytes.length - 1)) ? '\n' : '';
  const entries: Entry[] = [];
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (base && ref !== verbatim?.ref && !isWrittenBy(base, ref, object)) continue;
    const head = `${ref.objectNumber} ${ref.generationNumber} obj\n`;
    const tail = 9; // "\nendobj\n\n"
    if (verbatim && ref === verbatim.ref) {
      entries.push({ ref, head, verbatim, size: head.length + verbatim.size + tail });
    } else if (object instanceof PDFStream) {
      const contents = streamContents(object);
      const size = head.length + object.dict.sizeInBytes() + 8 + contents.length + 10 + tail;
      entries.push({ ref, head, stream: { dict: object.dict, contents }, size });
    } else {
      const pristine = pristineBytesOf(context, object);
      entries.push(
        pristine
          ? { ref, head, pristine, size: head.length + pristine.length + tail }
          : { ref, head, object, size: head.length + object.sizeInBytes() + tail },
      );
    }
  }

  let offset = base ? base.bytes.length + separator.length : header.sizeInBytes() + 2;
  const offsets = new Map<number, { offset: number; generation: number }>();
  let verbatimOffset = -1;
  for (const entry of entries) {
    offsets.set(entry.ref.objectNumber, { offset, generation: entry.ref.generationNumber });
    if (entry.verbatim) verbatimOffset = offset + entry.head.length;
    offset += entry.size;
  }
  const xrefOffset = offset;

  // Cross-reference table: object 0 heads the free list (in a whole file), then one subsection per run
  // of numbers.
  const numbers = [...offsets.keys()].sort((a, b) => a - b);
  const lines: string[] = base ? ['xref'] : ['xref', '0 1', '0000000000 65535 f '];
  for (let i = 0; i < numbers.length;) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === (numbers[j] ?? 0) + 1) j++;
    lines.push(`${numbers[i]} ${j - i + 1}`);
    for (let k = i; k <= j; k++) {
      const at = offsets.get(numbers[k] ?? 0);
      lines.push(
        `${String(at?.offset ?? 0).padStart(10, '0')} ${String(at?.generation ?? 0).padStart(5, '0')} n `,
      );
    }
    i = j + 1;
  }
  const { Root, Info, Encrypt } = context.trailerInfo;
  // A file identifier, as signature validators expect; kept when the document had one.
  const id =
    context.trailerInfo.ID ??
    (() => {
      // Both halves from one call: each call into the generator costs as much as the bytes.
      const random = randomBytes(32).toString('hex');
      const array = PDFArray.withContext(context);
      array.push(PDFHexString.of(random.slice(0, 32)));
      array.push(PDFHexString.of(random.slice(32)));
      return array;
    })();
  const trailerDict = context.obj({
    Size: Math.max(context.largestObjectNumber, numbers[numbers.length - 1] ?? 0) + 1,
    Root,
    Info,
    Encrypt,
    ID: id,
    ...(base ? { Prev: base.previousXref } : {}),
  });
  const tail = `${lines.join('\n')}\ntrailer\n${trailerDict.toString()}\nstartxref\n${xrefOffset}\n%%EOF\n`;
  const fileSize = xrefOffset + Buffer.byteLength(tail, ASCII);

  const file =
    spareBytes > 0
      ? Buffer.from(new ArrayBuffer(fileSize + spareBytes), 0, fileSize)
      : Buffer.allocUnsafe(fileSize);
  let at = 0;
  if (base) {
    at += base.bytes.copy(file, 0);
    at += file.write(separator, at, ASCII);
  } else {
    at += header.copyBytesInto(file, 0);
    at += file.write('\n\n', at, ASCII);
  }
  for (const entry of entries) {
    at += file.write(entry.head, at, ASCII);
    if (entry.verbatim) {
      const bytes = entry.verbatim.render({ offset: at, fileSize });
      if (bytes.length !== entry.verbatim.size) throw new Error('verbatim object changed size');
      at += bytes.copy(file, at);
    } else if (entry.stream) {
      at += entry.stream.dict.copyBytesInto(file, at);
      at += file.write('\nstream\n', at, ASCII);
      file.set(entry.stream.contents, at);
      at += entry.stream.contents.length;
      at += file.write('\nendstream', at, ASCII);
    } else if (entry.pristine) {
      file.set(entry.pristine, at);
      at += entry.pristine.length;
    } else if (entry.object) {
      at += entry.object.copyBytesInto(file, at);
    }
    at += file.write('\nendobj\n\n', at, ASCII);
  }
  at += file.write(tail, at, ASCII);
  if (at !== fileSize) throw new Error(`PDF size mismatch: wrote ${at} of ${fileSize} bytes`);
  return { file, verbatimOffset };
};

import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import type DecodeStreamClass from 'pdf-lib/cjs/core/streams/DecodeStream';

/**
 * A bound on what pdf-lib may inflate while it parses one document.
 *
 * Parsing decodes every object stream (and cross-reference stream) in full. A 25 MB upload of
 * deflated zeros inflates to ~25 GB: without a bound one request would take minutes of CPU and the
 * signer's memory, and every signing in flight on that replica with it. pdf-lib grows its decode
 * buffers through `DecodeStream.ensureBuffer`; each growth is charged here against the budget of the
 * load in progress, and refused before it is allocated once the budget is spent.
 */
export class DecodeBudgetExceeded extends Error {
  override readonly name = 'DecodeBudgetExceeded';
}

let remaining = Number.POSITIVE_INFINITY;
/** Set when a growth was refused: pdf-lib skips objects that fail to parse, so it may not say so. */
let exceeded = false;

interface Growable {
  buffer: Uint8Array;
  minBufferLength: number;
}

// The build of pdf-lib that Node loads (its "main": CommonJS), whose parser uses this class.
const { default: DecodeStream } = createRequire(import.meta.url)(
  'pdf-lib/cjs/core/streams/DecodeStream.js',
) as { default: typeof DecodeStreamClass };
{
  const proto = DecodeStream.prototype as unknown as {
    ensureBuffer: (this: Growable, requested: number) => Uint8Array;
  };
  const original = proto.ensureBuffer;
  proto.ensureBuffer = function ensureBuffer(this: Growable, requested: number): Uint8Array {
    const current = this.buffer.byteLength;
    if (requested > current) {
      // The size pdf-lib is about to allocate (it doubles from its minimum until the request fits).
      let size = this.minBufferLength;
      while (size < requested) size *= 2;
      if (size - current > remaining) {
        exceeded = true;
        throw new DecodeBudgetExceeded('decode budget exceeded');
      }
      remaining -= size - current;
    }
    return original.call(this, requested);
  };
}

/**
 * A FlateDecode stream inflated by zlib (native: pdf-lib's decoder is JavaScript, a byte at a time;
 * a 20-page document's object streams took 7% of its signing), charged to the same budget: zlib is
 * told to stop at what is left of it. Undefined when zlib finds the data damaged, for pdf-lib's own
 * decoder to read what it can of it, as it would have.
 */
export const inflateWithinBudget = (contents: Uint8Array): Uint8Array | undefined => {
  let inflated: Buffer;
  try {
    inflated = inflateSync(contents, {
      maxOutputLength: Math.max(1, Math.min(remaining, 2 ** 31 - 1)),
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      exceeded = true;
      throw new DecodeBudgetExceeded('decode budget exceeded');
    }
    return undefined;
  }
  remaining -= inflated.length;
  return inflated;
};

let queue: Promise<unknown> = Promise.resolve();

/**
 * Run a parse with at most `bytes` of decode buffers; throws `DecodeBudgetExceeded` when the parse
 * wanted more, even if it went on without the objects it could not decode. Parses take turns, so the
 * budget is exactly this parse's: pdf-lib yields between sections of a file, and a parse running
 * meanwhile would spend from the same budget. They cost CPU either way, so taking turns costs no
 * throughput.
 */
export const withDecodeBudget = <T>(bytes: number, parse: () => Promise<T>): Promise<T> => {
  const run = queue.then(async () => {
    remaining = bytes;
    exceeded = false;
    try {
      const result = await parse();
      if (exceeded) throw new DecodeBudgetExceeded('decode budget exceeded');
      return result;
    } finally {
      remaining = Number.POSITIVE_INFINITY;
    }
  });
  queue = run.catch(() => undefined);
  return run;
};

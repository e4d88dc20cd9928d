import { describe, expect, it } from 'vitest';
import { PDFRawStream } from 'pdf-lib';
import { makeLargePdf } from '@esign/testing';
import { loadPdf } from './load-pdf';

// pdf-lib cuts a stream's data out of the file with `slice`, which on a Buffer (unlike a plain
// Uint8Array) is a view, not a copy: a 20 MB upload of images is not held twice while it is signed.
describe('loading a PDF', () => {
  it("keeps its streams' data as views into the file, not copies", async () => {
    const bytes = await makeLargePdf(2 * 1024 * 1024);
    const { doc } = await loadPdf(bytes);
    const streams = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .filter((object): object is PDFRawStream => object instanceof PDFRawStream);
    expect(streams.length).toBeGreaterThan(0);
    for (const stream of streams) expect(stream.contents.buffer).toBe(bytes.buffer);
  });
});

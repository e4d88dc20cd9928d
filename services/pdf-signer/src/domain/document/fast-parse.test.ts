import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import { PDFContext, PDFDocument, PDFObjectParser, ParseSpeeds } from 'pdf-lib';
import type * as PdfLib from 'pdf-lib';
// pdf-lib's ES build: the same parser, which `fast-parse` does not touch (it patches the CommonJS
// build that Node loads).
import * as untouched from 'pdf-lib/es/index.js';
import './fast-parse';

const options = { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false, throwOnInvalidObject: false };

/** Every object of the document as pdf-lib prints it, by reference, with its class. */
const objectsOf = (doc: { context: { enumerateIndirectObjects(): [unknown, unknown][] } }) =>
  doc.context
    .enumerateIndirectObjects()
    .map(([ref, object]) => `${String(ref)} ${(object as object).constructor.name} ${String(object)}`)
    .sort();

/** Names with #-escapes, numbers of every form, comments, references and strings, in a classic file. */
const handWritten = (): Buffer => {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /Extra#20Name /A#2fB /Num [ -12 +7 .5 3. 0.25 -0.0 1234567890123456789 ] >>',
    '<< /Type /Pages /Kids [ 3 0 R ] /Count 1 % a comment\n/MediaBox [0 0 612 792] >>',
    '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R /Rotate 90 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Name (a \\(string\\)) /Hex <48656C6C6F> /Empty <> /Lines <4865\n6C 6C\r\n6F> >>',
    '<< /Length 8 >>\nstream\nBT ET q\nendstream',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
};

const CORPUS = resolve(import.meta.dirname, '../../../../../../shared/corpus');
const corpusFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? corpusFiles(join(dir, entry.name))
      : entry.name.toLowerCase().endsWith('.pdf')
        ? [join(dir, entry.name)]
        : [],
  );

/** The parse's objects, or the error's class when it fails (pdf-lib fails some damaged files). */
const parsed = async (
  load: () => Promise<{ context: { enumerateIndirectObjects(): [unknown, unknown][] } }>,
) => {
  try {
    return objectsOf(await load());
  } catch (error) {
    return [`fails: ${(error as Error).constructor.name}`];
  }
};

describe("fast-parse (pdf-lib's parser, faster)", () => {
  it('patches the build of pdf-lib that is imported here, and not the one compared with', () => {
    const commonJs = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;
    expect(commonJs.PDFDocument).toBe(PDFDocument);
    expect(untouched.PDFDocument).not.toBe(PDFDocument);
  });

  it.each([
    ['a one-page pdf-lib document (object streams)', () => makePdf({ pages: 1 })],
    ['a 5-page labelled document', () => makePdf({ pages: 5, text: 'Page' })],
    ['a hand-written classic file', () => Promise.resolve(handWritten())],
  ])('parses %s into the same objects as pdf-lib itself', async (_, make) => {
    const bytes = await make();
    const ours = await PDFDocument.load(bytes, options);
    const theirs = await untouched.PDFDocument.load(bytes, options);
    expect(objectsOf(ours)).toEqual(objectsOf(theirs));
    expect(ours.getPageCount()).toBe(theirs.getPageCount());
  });

  it('reads hex strings whole, leaving the parser where pdf-lib leaves it (its errors report the position)', async () => {
    type ObjectParser = { parseObject(): { toString(): string }; bytes: { position(): unknown } };
    type ParserClass = { forBytes(bytes: Uint8Array, context: unknown): ObjectParser };
    const load = createRequire(import.meta.url);
    const ours = (load('pdf-lib/cjs/core/parser/PDFObjectParser.js') as { default: ParserClass }).default;
    const theirs = (
      (await import('pdf-lib/es/core/parser/PDFObjectParser.js')) as unknown as { default: ParserClass }
    ).default;
    const source = Buffer.from('[<48656C\n6C6F> <> <4\r\n1\n42 43> <ABCDEF>]', 'latin1');
    const read = (parser: ParserClass, context: unknown) => {
      const sut = parser.forBytes(source, context);
      return { object: sut.parseObject().toString(), position: sut.bytes.position() };
    };
    const expected = read(theirs, untouched.PDFContext.create());
    expect(read(ours, (await PDFDocument.create()).context)).toEqual(expected);
    expect(expected.object).toContain('<4\r\n1\n42 43>');
    const unterminated = Buffer.from('<4142\n43', 'latin1');
    const failure = (parser: ParserClass, context: unknown) => {
      try {
        parser.forBytes(unterminated, context).parseObject();
      } catch (error) {
        return (error as Error).message;
      }
      return 'parsed';
    };
    expect(failure(ours, (await PDFDocument.create()).context)).toBe(
      failure(theirs, untouched.PDFContext.create()),
    );
  });

  it.each([
    ['after names, references, numbers and arrays', '<< /A 1 0 R /B [ 1 2 /N ] /C 3 4 /D 5\n>> )'],
    ['after keywords, a comment and a number that is not a reference', '[ true false null 7 % note\n 8 x'],
    ['inside a dictionary, on its second line', '<< /Type /Page\n/Kids [ 3 0 R ] /X ]'],
  ])('reports the position pdf-lib reports %s', (_, source) => {
    const bytes = Buffer.from(source, 'latin1');
    const errorOf = (parse: () => unknown) => {
      try {
        parse();
        return 'parsed';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const ours = errorOf(() => {
      const parser = PDFObjectParser.forBytes(bytes, PDFContext.create());
      parser.parseObject();
      parser.parseObject();
    });
    const theirs = errorOf(() => {
      const parser = untouched.PDFObjectParser.forBytes(bytes, untouched.PDFContext.create());
      parser.parseObject();
      parser.parseObject();
    });
    // Messages carry the line, column and offset of the byte at fault.
    expect(ours).toMatch(/line:\d+ col:\d+ offset=\d+/);
    expect(ours).toBe(theirs);
  });

  it('parses every file of the shared corpus (real-world, damaged, object streams) as pdf-lib does', async () => {
    expect(existsSync(CORPUS), `the PDF corpus is missing: ${CORPUS}`).toBe(true);
    const files = corpusFiles(CORPUS);
    expect(files.length).toBeGreaterThan(400);
    const warn = console.warn;
    console.warn = () => undefined; // pdf-lib prints a line for each damaged object it skips
    const different: string[] = [];
    let parsedBoth = 0;
    try {
      for (const file of files) {
        const bytes = readFileSync(file);
        const ours = await parsed(() => PDFDocument.load(bytes, { ...options, ignoreEncryption: true }));
        const theirs = await parsed(() =>
          untouched.PDFDocument.load(bytes, { ...options, ignoreEncryption: true }),
        );
        if (JSON.stringify(ours) !== JSON.stringify(theirs)) different.push(file);
        else if (!ours[0]?.startsWith('fails:')) parsedBoth += 1;
      }
    } finally {
      console.warn = warn;
    }
    expect(different).toEqual([]);
    expect(parsedBoth).toBeGreaterThan(400);
  }, 120_000);
});

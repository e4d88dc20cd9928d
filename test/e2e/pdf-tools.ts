import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

/**
 * What independent tools (qpdf, poppler) say about a PDF we produced. Nothing here is our own PDF
 * code: the point is to check our output with software nobody here wrote.
 */

const run = promisify(execFile);

const withFile = async <T>(bytes: Uint8Array, fn: (path: string, dir: string) => Promise<T>): Promise<T> => {
  const dir = await mkdtemp(join(tmpdir(), 'esign-pdf-'));
  const path = join(dir, 'doc.pdf');
  await writeFile(path, bytes);
  try {
    return await fn(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** `qpdf --check`: exit code 0 means the structure is sound (warnings exit 3). */
export const qpdfCheck = (bytes: Uint8Array) =>
  withFile(bytes, async (path) => {
    try {
      const { stdout } = await run('qpdf', ['--check', path]);
      return { ok: true, output: stdout };
    } catch (err) {
      return { ok: false, output: String((err as { stdout?: string }).stdout ?? err) };
    }
  });

export interface PageInfo {
  width: number;
  height: number;
  rotation: number;
}

/** Page count and each page's size and rotation, from `pdfinfo`. */
export const pdfInfo = (bytes: Uint8Array) =>
  withFile(bytes, async (path) => {
    const { stdout } = await run('pdfinfo', ['-f', '1', '-l', '100000', path]);
    const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1] ?? NaN);
    const sizes: PageInfo[] = [];
    for (const m of stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts.*\nPage\s+\d+ rot:\s+(\d+)/gm)) {
      sizes.push({ width: Number(m[1]), height: Number(m[2]), rotation: Number(m[3]) });
    }
    return { pages, sizes, raw: stdout };
  });

/** Document metadata as pdfinfo prints it (Info dictionary), and the XMP packet (`pdfinfo -meta`). */
export const pdfMetadata = (bytes: Uint8Array) =>
  withFile(bytes, async (path) => {
    const [info, meta] = await Promise.all([
      run('pdfinfo', ['-isodates', path]),
      run('pdfinfo', ['-meta', path]),
    ]);
    return { info: info.stdout, xmp: meta.stdout };
  });

/** Text of one page (1-based) or of all pages, from `pdftotext`. */
export const pdfText = (bytes: Uint8Array, page?: number) =>
  withFile(bytes, async (path) => {
    const range = page ? ['-f', String(page), '-l', String(page)] : [];
    const { stdout } = await run('pdftotext', [...range, '-enc', 'UTF-8', path, '-']);
    return stdout;
  });

/** `pdfsig` output: whether each signature is valid and covers the whole document. */
export const pdfSignatures = (bytes: Uint8Array) =>
  withFile(bytes, async (path) => {
    try {
      const { stdout } = await run('pdfsig', [path]);
      return stdout;
    } catch (err) {
      return String((err as { stdout?: string }).stdout ?? err);
    }
  });

/** Fonts of the document, from `pdffonts` (name, type, embedded). */
export const pdfFonts = (bytes: Uint8Array) =>
  withFile(bytes, async (path) => (await run('pdffonts', [path])).stdout);

export interface Rendering {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, row after row from the top. */
  pixels: Buffer;
}

/** One page (0-based) as pixels, as `pdftoppm` renders it: what a person sees. */
export const renderPage = (bytes: Uint8Array, pageIndex: number, dpi = 40): Promise<Rendering> =>
  withFile(bytes, async (path, dir) => {
    const n = String(pageIndex + 1);
    await run('pdftoppm', ['-r', String(dpi), '-f', n, '-l', n, '-png', '-singlefile', path, join(dir, 'page')]);
    const { data, info } = await sharp(await readFile(join(dir, 'page.png')))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, pixels: data };
  });

/** A box in percent of the rendered page, origin top-left. */
export interface PercentBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

const eachPixel = (r: Rendering, box: PercentBox, fn: (rgb: [number, number, number]) => void) => {
  const x0 = Math.max(0, Math.floor((box.x / 100) * r.width));
  const y0 = Math.max(0, Math.floor((box.y / 100) * r.height));
  const x1 = Math.min(r.width, Math.ceil(((box.x + box.w) / 100) * r.width));
  const y1 = Math.min(r.height, Math.ceil(((box.y + box.h) / 100) * r.height));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * r.width + x) * 3;
      fn([r.pixels[i] ?? 255, r.pixels[i + 1] ?? 255, r.pixels[i + 2] ?? 255]);
    }
  }
};

/** Fraction of pixels in the box that are not (near) white. */
export const inkIn = (r: Rendering, box: PercentBox): number => {
  let ink = 0;
  let total = 0;
  eachPixel(r, box, ([red, green, blue]) => {
    total += 1;
    if (red < 200 || green < 200 || blue < 200) ink += 1;
  });
  return total ? ink / total : 0;
};

/** Average colour of the inked pixels in the box. */
export const inkColour = (r: Rendering, box: PercentBox): [number, number, number] => {
  let [red, green, blue, n] = [0, 0, 0, 0];
  eachPixel(r, box, ([pr, pg, pb]) => {
    if (pr < 200 || pg < 200 || pb < 200) {
      red += pr;
      green += pg;
      blue += pb;
      n += 1;
    }
  });
  return n ? [Math.round(red / n), Math.round(green / n), Math.round(blue / n)] : [255, 255, 255];
};

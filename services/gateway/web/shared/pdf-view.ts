/**
 * Renders every page of a PDF into a container with pdf.js (bundled, served from /web/; no CDN).
 *
 * Each page becomes a `<figure class="pdf-page">` holding a canvas and an empty `layer` element laid
 * exactly over it: callers put overlays (signature boxes, fields) into the layer. Positions use the
 * API's convention: percentages of the page as a person sees it (after /Rotate, inside the crop box),
 * origin top-left — which is what pdf.js's viewport shows, so `placeOverlay` only sets percentages
 * and the overlays follow the page when the screen is resized.
 *
 * Stable API (used by more than one page): `renderPdf`, `placeOverlay`, `PdfView`, `PdfPageView`.
 */
import { AnnotationMode, GlobalWorkerOptions, getDocument, type PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { h } from './dom';

GlobalWorkerOptions.workerSrc = workerUrl;

/** Where the gateway serves pdf.js's data files (fonts, character maps, image decoders). */
const PDFJS_DATA_URL = `${import.meta.env.BASE_URL}pdfjs/`;

/** Where the PDF comes from: a same-origin URL (optionally with headers) or its bytes. */
export type PdfSource =
  { url: string; httpHeaders?: Record<string, string> } | { data: Uint8Array | ArrayBuffer };

export interface PdfPageView {
  /** Zero-based page index (the `page` of a position). */
  index: number;
  /** The page's `<figure>` (position: relative); its width follows the container. */
  element: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Covers the canvas exactly; put overlays here (see `placeOverlay`). */
  layer: HTMLElement;
  /** Page size in PDF points as displayed (after /Rotate, the crop box). */
  widthPt: number;
  heightPt: number;
  /** CSS pixels per PDF point at which the page was rendered (the container's width at the time). */
  scale: number;
  /** CSS pixels per PDF point as the page is shown now (changes when the screen is resized). */
  currentScale(): number;
}

export interface PdfView {
  pageCount: number;
  pages: PdfPageView[];
  /** Removes the pages from the container and frees pdf.js's memory. */
  destroy(): Promise<void>;
}

export interface RenderPdfOptions {
  /** Widest a page is drawn, in CSS pixels (default 900); narrower containers get narrower pages. */
  maxWidth?: number;
  /** Accessible label of a page (default "Page 1 of 3"). */
  pageLabel?: (index: number, count: number) => string;
  /** Called after each page has been drawn (e.g. for progress). */
  onPage?: (page: PdfPageView) => void;
  /**
   * Draw only the first pages (an envelope's document carries its certificate of completion's pages
   * at the end from the start, empty until completion: the signer is shown the document's own).
   */
  maxPages?: number;
  signal?: AbortSignal;
}

/** Something went wrong reading or drawing the PDF; `message` is fit to show to a person. */
export class PdfViewError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PdfViewError';
  }
}

const toBytes = (data: Uint8Array | ArrayBuffer): Uint8Array =>
  data instanceof Uint8Array ? data : new Uint8Array(data);

/**
 * Draws all pages of `source` into `container` (appended, in order) and resolves once every page is
 * on screen. Pages are drawn at the container's width (capped by `maxWidth`) and the device's pixel
 * ratio, so text stays sharp on phones.
 */
export const renderPdf = async (
  container: HTMLElement,
  source: PdfSource,
  options: RenderPdfOptions = {},
): Promise<PdfView> => {
  const maxWidth = options.maxWidth ?? 900;
  const pageLabel = options.pageLabel ?? ((i, n) => `Page ${i + 1} of ${n}`);
  const task = getDocument({
    ...('data' in source
      ? { data: toBytes(source.data) }
      : { url: source.url, httpHeaders: source.httpHeaders, withCredentials: true }),
    // The pages' CSP allows no eval: pdf.js must not try it.
    isEvalSupported: false,
    // pdf.js's own data, copied next to the bundles at build time (web/vite.config.ts): the standard
    // 14 fonts documents do not embed, character maps of CJK fonts, and the decoders of JPEG 2000
    // and JBIG2 images. Nothing comes from another origin.
    standardFontDataUrl: `${PDFJS_DATA_URL}standard_fonts/`,
    cMapUrl: `${PDFJS_DATA_URL}cmaps/`,
    cMapPacked: true,
    wasmUrl: `${PDFJS_DATA_URL}wasm/`,
    iccUrl: `${PDFJS_DATA_URL}iccs/`,
  });
  const abort = () => void task.destroy();
  options.signal?.addEventListener('abort', abort, { once: true });

  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    options.signal?.removeEventListener('abort', abort);
    const name = (err as { name?: string } | null)?.name;
    throw new PdfViewError(
      name === 'PasswordException'
        ? 'This PDF is protected by a password and cannot be shown.'
        : name === 'InvalidPDFException'
          ? 'This file is not a readable PDF.'
          : 'The document could not be loaded. Please reload the page.',
      { cause: err },
    );
  }

  const pages: PdfPageView[] = [];
  const ratio = Math.max(1, Math.min(window.devicePixelRatio || 1, 3));
  try {
    const count = Math.min(doc.numPages, options.maxPages ?? doc.numPages);
    for (let i = 0; i < count; i++) {
      if (options.signal?.aborted) throw new PdfViewError('Stopped.');
      const page = await doc.getPage(i + 1);
      const base = page.getViewport({ scale: 1 });
      const available = Math.max(200, Math.min(maxWidth, container.clientWidth || maxWidth));
      const scale = available / base.width;
      const viewport = page.getViewport({ scale: scale * ratio });

      const element = h('figure', {
        class: 'pdf-page',
        'data-page': i,
        role: 'group',
        'aria-label': pageLabel(i, count),
      });
      element.style.position = 'relative';
      element.style.margin = '0 auto';
      element.style.maxWidth = `${base.width * scale}px`;
      element.style.width = '100%';
      element.style.aspectRatio = `${base.width} / ${base.height}`;

      const canvas = h('canvas', {
        width: Math.round(viewport.width),
        height: Math.round(viewport.height),
        'aria-hidden': 'true',
      });
      canvas.style.display = 'block';
      canvas.style.width = '100%';
      canvas.style.height = '100%';

      const layer = h('div', { class: 'pdf-layer' });
      layer.style.position = 'absolute';
      layer.style.inset = '0';

      element.append(canvas, layer);
      container.append(element);

      // Every annotation's appearance on the canvas, form fields included (there is no annotation layer):
      // an envelope's earlier signers' values live in form fields.
      await page.render({ canvas, viewport, annotationMode: AnnotationMode.ENABLE }).promise;
      page.cleanup();

      const view: PdfPageView = {
        index: i,
        element,
        canvas,
        layer,
        widthPt: base.width,
        heightPt: base.height,
        scale,
        currentScale: () => (element.clientWidth || base.width * scale) / base.width,
      };
      pages.push(view);
      options.onPage?.(view);
    }
  } catch (err) {
    await doc.destroy();
    for (const view of pages) view.element.remove();
    if (err instanceof PdfViewError) throw err;
    throw new PdfViewError('A page of the document could not be drawn. Please reload the page.', {
      cause: err,
    });
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }

  return {
    pageCount: Math.min(doc.numPages, options.maxPages ?? doc.numPages),
    pages,
    destroy: async () => {
      for (const view of pages) view.element.remove();
      await doc.destroy();
    },
  };
};

/** A box in the API's position convention: percentages of the shown page, top-left origin. */
export interface OverlayBox {
  x: number;
  y: number;
  width: number;
  /** Height in percent of the page's height; or give `aspect` (height / width) instead. */
  height?: number;
  aspect?: number;
}

/**
 * Places `overlay` into the page's layer at `box` (absolute, in percentages, so it follows resizes)
 * and returns it. With `aspect`, the height is the box's width times it, in page points.
 */
export const placeOverlay = (page: PdfPageView, overlay: HTMLElement, box: OverlayBox): HTMLElement => {
  const height =
    box.height ?? ((box.width / 100) * page.widthPt * (box.aspect ?? 1 / 3) * 100) / page.heightPt;
  overlay.style.position = 'absolute';
  overlay.style.left = `${box.x}%`;
  overlay.style.top = `${box.y}%`;
  overlay.style.width = `${box.width}%`;
  overlay.style.height = `${height}%`;
  overlay.style.boxSizing = 'border-box';
  page.layer.append(overlay);
  return overlay;
};

import { PDFArray, PDFCatalog, PDFDict, PDFName, PDFPageLeaf, PDFPageTree, PDFRef, PDFStream } from 'pdf-lib';
import type { PDFDocument } from 'pdf-lib';

const TYPE = PDFName.of('Type');
const PAGES = PDFName.of('Pages');
const KIDS = PDFName.of('Kids');
const PARENT = PDFName.of('Parent');
const CONTENTS = PDFName.of('Contents');
const ACRO_FORM = PDFName.of('AcroForm');
const FIELDS = PDFName.of('Fields');

/**
 * Mend, in place, what readers tolerate but pdf-lib trips over when a page is stamped, a page added
 * or a signature field registered, in the entries signing touches:
 * - a page or page-tree node whose /Parent is not the node that lists it in /Kids (the catalog, say)
 *   gets its true parent: pdf-lib follows /Parent to inherit the media box, crop box and rotation;
 * - a /Contents that is neither a stream nor an array of streams (a number, say) keeps only its
 *   streams: readers draw nothing for the rest, and pdf-lib could not append to it;
 * - a form whose /Fields is not an array gets an empty one (readers see no fields there either), and a
 *   catalog /AcroForm that is not a dictionary is dropped.
 * Run after an incremental update has recorded how the objects looked, so that what is mended is
 * written with the update. Returns how many entries were mended.
 */
export const mendDocument = (doc: PDFDocument): number => {
  const { context, catalog } = doc;
  let mended = 0;
  const pagesRef = catalog.get(PAGES);
  const seen = new Set<PDFDict>();
  const visit = (nodeRef: PDFRef, node: PDFDict) => {
    const kids = node.lookupMaybe(KIDS, PDFArray);
    if (!kids) return mendContents(node);
    for (let i = 0; i < kids.size(); i++) {
      const kidRef = kids.get(i);
      if (!(kidRef instanceof PDFRef)) continue;
      const kid = context.lookup(kidRef);
      if (!(kid instanceof PDFDict) || seen.has(kid)) continue;
      seen.add(kid);
      if (kid.get(PARENT) !== nodeRef) {
        kid.set(PARENT, nodeRef);
        mended += 1;
      }
      visit(kidRef, kid);
    }
  };
  const mendContents = (page: PDFDict) => {
    const contents = page.get(CONTENTS);
    if (contents === undefined) return;
    const resolved = contents instanceof PDFRef ? context.lookup(contents) : contents;
    if (resolved instanceof PDFStream) return;
    if (resolved instanceof PDFArray) {
      const items = resolved.asArray();
      const streams = items.filter((item) => context.lookup(item) instanceof PDFStream);
      if (streams.length === items.length) return;
      page.set(CONTENTS, context.obj(streams));
    } else {
      page.delete(CONTENTS);
    }
    mended += 1;
  };
  if (pagesRef instanceof PDFRef) {
    const root = context.lookup(pagesRef);
    if (root instanceof PDFDict) {
      seen.add(root);
      visit(pagesRef, root);
    }
  }

  const acroFormEntry = catalog.get(ACRO_FORM);
  if (acroFormEntry !== undefined) {
    const acroForm = context.lookup(acroFormEntry);
    if (!(acroForm instanceof PDFDict)) {
      catalog.delete(ACRO_FORM);
      mended += 1;
    } else {
      const fields = acroForm.get(FIELDS);
      if (fields !== undefined && !(context.lookup(fields) instanceof PDFArray)) {
        acroForm.set(FIELDS, context.obj([]));
        mended += 1;
      }
    }
  }
  return mended;
};

/**
 * Mend what stops pdf-lib from finding the pages at all, in a document that is written anew (one
 * qpdf has rewritten): pdf-lib recognises the catalog, page-tree nodes and pages by their /Type when
 * it parses them, so one with a misspelt /Type (which readers ignore) is made what its place in the
 * tree says it is; pages or nodes written directly inside /Kids become objects of their own, as qpdf
 * and readers treat them. Not for a document to be updated incrementally: what changes here is not
 * recorded as changed.
 */
export const mendPageTreeForLoading = (doc: PDFDocument): void => {
  const { context } = doc;
  const rootRef = context.trailerInfo.Root;
  const root = rootRef ? context.lookup(rootRef) : undefined;
  if (rootRef instanceof PDFRef && root instanceof PDFDict && !(root instanceof PDFCatalog)) {
    const catalog = PDFCatalog.fromMapWithContext(new Map(root.entries()), context);
    catalog.set(TYPE, PDFName.of('Catalog'));
    context.assign(rootRef, catalog);
    // pdf-lib keeps the catalog it found on load; it has not read the pages through it yet.
    (doc as unknown as { catalog: PDFCatalog }).catalog = catalog;
  }
  const seen = new Set<PDFRef>();
  const visit = (ref: PDFRef, parent: PDFRef | undefined) => {
    if (seen.has(ref)) return;
    seen.add(ref);
    const found = context.lookup(ref);
    if (!(found instanceof PDFDict)) return;
    let node: PDFDict = found;
    const kids = node.lookup(KIDS);
    if (kids instanceof PDFArray && !(node instanceof PDFPageTree)) {
      node = PDFPageTree.fromMapWithContext(new Map(node.entries()), context);
      node.set(TYPE, PDFName.of('Pages'));
      context.assign(ref, node);
    } else if (!(kids instanceof PDFArray) && parent && !(node instanceof PDFPageLeaf)) {
      node = PDFPageLeaf.fromMapWithContext(new Map(node.entries()), context);
      node.set(TYPE, PDFName.of('Page'));
      context.assign(ref, node);
    }
    if (parent) node.set(PARENT, parent);
    if (!(kids instanceof PDFArray)) return;
    for (let i = 0; i < kids.size(); i++) {
      let kid = kids.get(i);
      if (kid instanceof PDFDict) {
        kid = context.register(kid);
        kids.set(i, kid);
      }
      if (kid instanceof PDFRef) visit(kid, ref);
    }
  };
  const pagesRef = doc.catalog.get(PAGES);
  if (pagesRef instanceof PDFRef) visit(pagesRef, undefined);
};

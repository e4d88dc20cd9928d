import { PDFArray, PDFDict, PDFName, PDFRef, PDFString } from 'pdf-lib';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import { readDer, readDerChildren } from '../der/read-der';

/**
 * PAdES B-LT: what a validator needs years later, in a Document Security Store (ISO 32000-2 §12.8.4.3)
 * appended as an incremental update after the signature, so the signature itself is untouched:
 * every certificate of the signing chain and of the timestamp token, each once, as a stream listed
 * in the DSS's /Certs, and the revocation data of those that have any (DER OCSP responses in /OCSPs,
 * DER CRLs in /CRLs, one stream each; see revocation.ts). A DSS already in the document (an earlier
 * seal's) keeps its entries.
 */
export const appendDss = (options: {
  doc: PDFDocument;
  /** The sealed file: it ends with the signature's revision. */
  file: Buffer;
  /** DER certificates to store (duplicates are stored once). */
  certificates: readonly Buffer[];
  /** DER OCSP responses (each an OCSPResponse) for those certificates. */
  ocsps?: readonly Buffer[];
  /** DER CRLs for those certificates. */
  crls?: readonly Buffer[];
}): Buffer => {
  const { doc, file } = options;
  const context = doc.context;
  const unique: Buffer[] = [];
  for (const cert of options.certificates) if (!unique.some((c) => c.equals(cert))) unique.push(cert);

  // The last trailer: the update keeps its /Root, /Info, /ID and /Encrypt and points /Prev to it.
  const tail = file.toString('latin1', Math.max(0, file.lastIndexOf('trailer')));
  const prev = /startxref\s+(\d+)/.exec(tail)?.[1];
  const size = Number(/\/Size\s+(\d+)/.exec(tail)?.[1]);
  if (!prev || !Number.isFinite(size)) throw new Error('DSS: the sealed file has no trailer to extend');
  const keep = ['Root', 'Info', 'Encrypt']
    .map((key) => new RegExp(`/${key}\\s+(\\d+\\s+\\d+\\s+R)`).exec(tail))
    .map((m, i) => (m ? `/${['Root', 'Info', 'Encrypt'][i]} ${m[1]}` : ''))
    .filter((s) => s !== '');
  const id = /\/ID\s*(\[[^\]]*\])/.exec(tail)?.[1];

  const catalogRef = context.trailerInfo.Root;
  if (!(catalogRef instanceof PDFRef)) throw new Error('DSS: no catalog reference');
  const dssEntry = doc.catalog.get(PDFName.of('DSS'));
  const oldDss = dssEntry instanceof PDFRef ? context.lookup(dssEntry) : dssEntry;
  const kept: Record<'Certs' | 'OCSPs' | 'CRLs', string[]> = { Certs: [], OCSPs: [], CRLs: [] };
  const keptOther: string[] = [];
  if (oldDss instanceof PDFDict) {
    for (const key of ['Certs', 'OCSPs', 'CRLs'] as const) {
      const entry = oldDss.get(PDFName.of(key));
      const array = entry instanceof PDFRef ? context.lookup(entry) : entry;
      if (array instanceof PDFArray) for (const item of array.asArray()) kept[key].push(item.toString());
    }
    for (const key of ['VRI']) {
      const value = oldDss.get(PDFName.of(key));
      if (value !== undefined) keptOther.push(`/${key} ${value.toString()}`);
    }
  }

  let next = Math.max(size, context.largestObjectNumber + 1);
  const parts: Buffer[] = [];
  const offsets: [number, number][] = [];
  let offset = file.length;
  const add = (num: number, ...chunks: Buffer[]) => {
    offsets.push([num, offset]);
    for (const chunk of chunks) {
      parts.push(chunk);
      offset += chunk.length;
    }
  };
  const streams = (items: readonly Buffer[]): string[] =>
    items.map((data) => {
      const num = next++;
      add(
        num,
        Buffer.from(`${num} 0 obj\n<< /Length ${data.length} >>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream\nendobj\n', 'latin1'),
      );
      return `${num} 0 R`;
    });
  const certs = [...kept.Certs, ...streams(unique)];
  const ocsps = [...kept.OCSPs, ...streams(options.ocsps ?? [])];
  const crls = [...kept.CRLs, ...streams(options.crls ?? [])];
  const dssNum = next++;
  const entries = [
    `/Certs [${certs.join(' ')}]`,
    ...(ocsps.length > 0 ? [`/OCSPs [${ocsps.join(' ')}]`] : []),
    ...(crls.length > 0 ? [`/CRLs [${crls.join(' ')}]`] : []),
    ...keptOther,
  ];
  add(dssNum, Buffer.from(`${dssNum} 0 obj\n<< /Type /DSS ${entries.join(' ')} >>\nendobj\n`, 'latin1'));
  // The catalog as it is now, with /DSS pointing to the new dictionary.
  doc.catalog.set(PDFName.of('DSS'), PDFRef.of(dssNum));
  add(
    catalogRef.objectNumber,
    Buffer.from(
      `${catalogRef.objectNumber} ${catalogRef.generationNumber} obj\n${doc.catalog.toString()}\nendobj\n`,
      'latin1',
    ),
  );

  const xref = ['xref'];
  for (const [num, at] of offsets.sort((a, b) => a[0] - b[0])) {
    xref.push(
      `${num} 1`,
      `${String(at).padStart(10, '0')} ${num === catalogRef.objectNumber ? String(catalogRef.generationNumber).padStart(5, '0') : '00000'} n `,
    );
  }
  const trailer = `<< /Size ${next} ${keep.join(' ')}${id ? ` /ID ${id}` : ''} /Prev ${prev} >>`;
  parts.push(Buffer.from(`${xref.join('\n')}\ntrailer\n${trailer}\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return appendInPlace(file, parts);
};

/**
 * `file` followed by `parts`: written into the room after `file` when its buffer has enough (the
 * sealed file is serialised with some, `serializePdf`'s spareBytes), so that a 20 MB file is not
 * copied once more; a new buffer otherwise.
 */
const appendInPlace = (file: Buffer, parts: readonly Buffer[]): Buffer => {
  const added = parts.reduce((sum, part) => sum + part.length, 0);
  const { buffer } = file;
  if (!(buffer instanceof ArrayBuffer) || file.byteOffset + file.length + added > buffer.byteLength) {
    return Buffer.concat([file, ...parts]);
  }
  const out = Buffer.from(buffer, file.byteOffset, file.length + added);
  let at = file.length;
  for (const part of parts) at += part.copy(out, at);
  return out;
};

/** The certificates a CMS SignedData carries (a timestamp token's: the TSA's and its chain). */
export const certificatesOfCms = (cms: Buffer): Buffer[] => {
  try {
    const [, explicit] = readDerChildren(cms, readDer(cms, 0));
    if (!explicit) return [];
    const [signedData] = readDerChildren(cms, explicit);
    if (!signedData) return [];
    const certs = readDerChildren(cms, signedData).find((n) => n.tag === 0xa0);
    if (!certs) return [];
    return readDerChildren(cms, certs)
      .filter((n) => n.tag === 0x30)
      .map((n) => Buffer.from(cms.subarray(n.start, n.end)));
  } catch {
    return [];
  }
};

/**
 * PAdES B-LTA: a document timestamp after the DSS, as one more incremental update: a signature
 * dictionary `/Type /DocTimeStamp /SubFilter /ETSI.RFC3161` whose /Contents is an RFC 3161 token over
 * SHA-256 of the bytes its /ByteRange names (the whole file but the token), an invisible widget for it
 * on `page`, and the form's field list and the page's annotations rewritten to include it.
 * `timestamp(bytes)` asks the TSA for a token over SHA-256 of `bytes`.
 */
export const appendDocumentTimestamp = async (options: {
  doc: PDFDocument;
  file: Buffer;
  page: PDFPage;
  fieldName: string;
  placeholderBytes: number;
  timestamp: (covered: Buffer) => Promise<Buffer>;
}): Promise<Buffer> => {
  const { doc, file, page } = options;
  const { context } = doc;
  const tail = file.toString('latin1', Math.max(0, file.lastIndexOf('trailer')));
  const prev = /startxref\s+(\d+)/.exec(tail)?.[1];
  const size = Number(/\/Size\s+(\d+)/.exec(tail)?.[1]);
  if (!prev || !Number.isFinite(size)) throw new Error('document timestamp: no trailer to extend');
  const keep = ['Root', 'Info', 'Encrypt']
    .map((key) => [key, new RegExp(`/${key}\\s+(\\d+\\s+\\d+\\s+R)`).exec(tail)?.[1]] as const)
    .filter(([, ref]) => ref !== undefined)
    .map(([key, ref]) => `/${key} ${ref}`);
  const id = /\/ID\s*(\[[^\]]*\])/.exec(tail)?.[1];

  const sigNum = Math.max(size, context.largestObjectNumber + 1);
  const widgetNum = sigNum + 1;
  const widgetRef = PDFRef.of(widgetNum);
  // What changes: the page's /Annots and the form's /Fields, each where it lives (its own object or
  // inside its parent's dictionary).
  const changed = new Map<string, PDFRef>();
  const annots = page.node.get(PDFName.of('Annots'));
  const annotsArray = annots instanceof PDFRef ? context.lookup(annots, PDFArray) : annots;
  if (annotsArray instanceof PDFArray) annotsArray.push(widgetRef);
  else page.node.set(PDFName.of('Annots'), context.obj([widgetRef]));
  const annotsHolder = annots instanceof PDFRef ? annots : page.ref;
  changed.set(annotsHolder.toString(), annotsHolder);
  const acroFormEntry = doc.catalog.get(PDFName.of('AcroForm'));
  const acroForm = doc.catalog.getOrCreateAcroForm();
  const fields = acroForm.dict.get(PDFName.of('Fields'));
  if (fields instanceof PDFRef) {
    context.lookup(fields, PDFArray).push(widgetRef);
    changed.set(fields.toString(), fields);
  } else {
    acroForm.addField(widgetRef);
    const holder = acroFormEntry instanceof PDFRef ? acroFormEntry : context.trailerInfo.Root;
    if (!(holder instanceof PDFRef)) throw new Error('document timestamp: no catalog reference');
    changed.set(holder.toString(), holder);
  }

  const parts: Buffer[] = [];
  const offsets: [PDFRef, number][] = [];
  let offset = file.length;
  const add = (ref: PDFRef, text: string) => {
    offsets.push([ref, offset]);
    const bytes = Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n${text}\nendobj\n`, 'latin1');
    parts.push(bytes);
    offset += bytes.length;
  };
  // The signature dictionary: /ByteRange written with room for three 10-digit numbers, patched below.
  const sigHead = `${sigNum} 0 obj\n<< /Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange `;
  const rangeWidth = 2 + 3 * 11 + 1;
  const placeholder = `<${'0'.repeat(options.placeholderBytes * 2)}>`;
  const sigText = `${sigHead}${' '.repeat(rangeWidth)} /Contents ${placeholder} >>\nendobj\n`;
  const sigAt = offset;
  offsets.push([PDFRef.of(sigNum), offset]);
  parts.push(Buffer.from(sigText, 'latin1'));
  offset += sigText.length;
  const widget = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    Rect: [0, 0, 0, 0],
    F: 132,
    V: PDFRef.of(sigNum),
    P: page.ref,
  });
  widget.set(PDFName.of('T'), PDFString.of(options.fieldName));
  add(widgetRef, widget.toString());
  for (const ref of changed.values()) add(ref, context.lookup(ref)?.toString() ?? 'null');

  const xref = ['xref'];
  for (const [ref, at] of offsets.sort((a, b) => a[0].objectNumber - b[0].objectNumber)) {
    xref.push(
      `${ref.objectNumber} 1`,
      `${String(at).padStart(10, '0')} ${String(ref.generationNumber).padStart(5, '0')} n `,
    );
  }
  const trailer = `<< /Size ${widgetNum + 1} ${keep.join(' ')}${id ? ` /ID ${id}` : ''} /Prev ${prev} >>`;
  parts.push(Buffer.from(`${xref.join('\n')}\ntrailer\n${trailer}\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  const out = Buffer.concat([file, ...parts]);

  const contentsStart = sigAt + sigHead.length + rangeWidth + ' /Contents '.length;
  const contentsEnd = contentsStart + placeholder.length;
  const ranges = `[0 ${contentsStart} ${contentsEnd} ${out.length - contentsEnd}]`.padEnd(rangeWidth, ' ');
  out.write(ranges, sigAt + sigHead.length, 'latin1');
  const covered = Buffer.concat([out.subarray(0, contentsStart), out.subarray(contentsEnd)]);
  const token = await options.timestamp(covered);
  if (token.length > options.placeholderBytes) throw new Error('document timestamp: token too large');
  out.write(token.toString('hex'), contentsStart + 1, 'latin1');
  return out;
};

import { createHash } from 'node:crypto';
import { PDFName } from 'pdf-lib';
import type { PDFDict, PDFDocument, PDFPage } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import type {
  TAuditEvent,
  TCertificateRecipient,
  TEnvelopeField,
  TRecipientRole,
  TSignature,
  TSigner,
} from '@esign/contracts';
import { writeMetadata } from '../audit/write-audit-metadata';
import { loadPdf } from '../document/load-pdf';
import type { RepairLog } from '../document/load-pdf';
import { countSignatures, prepareIncrementalUpdate } from '../document/incremental-update';
import type { UpdateBase } from '../document/incremental-update';
import { mendDocument } from '../document/mend-document';
import { serializePdf } from '../document/serialize-pdf';
import type { FontLibrary } from '../layout/font-library';
import { createDocumentFonts } from '../layout/page-content';
import { pageFrameOf } from '../layout/page-frame';
import { prepareSignature } from '../stamp/stamp-signatures';
import { addCertificatePages, addCertificateTemplate, ROLE_NAMES, utc } from './certificate-page';
import {
  addCertificateFields,
  addRecipientFields,
  certificateFieldName,
  fillCertificateFields,
  fillFields,
  formFields,
  isPrepared,
  matchFields,
  SEAL_FIELD,
} from './form-fields';
import type { BodyItem } from './form-fields';
import { checkFields, drawFields } from './draw-fields';
import type { FilledField } from './draw-fields';
import { markPagesIncomplete } from './mark-incomplete';

/** PAdES baseline levels this signer writes. */
type TPadesLevel = 'B-T' | 'B-LT' | 'B-LTA';

/** What sealing one document asks of the signer (its identity, TSAs and revocation data). */
export interface SealRequest {
  readonly doc: PDFDocument;
  /** The page the (invisible) signature widget goes on. */
  readonly page: PDFPage;
  readonly base?: UpdateBase;
  readonly signedAt: string;
  readonly signerName: string;
  readonly reason: string;
  readonly contactInfo: string;
  readonly fieldName: string;
  /** An existing, unsigned signature field to sign (an envelope's prepared field) instead of a new one. */
  readonly field?: PDFDict;
  readonly padesLevel: TPadesLevel;
  /** Wraps each wait on the network (TSA tokens), as `SignHooks.network` does. */
  readonly network?: Network;
}

/** See `SignHooks.network`. */
export type Network = <T>(request: () => Promise<T>) => Promise<T>;

/** A sealed file and what the audit log says of its signature. */
export interface Sealed {
  readonly bytes: Buffer;
  /** `sha256:<hex>` of `bytes`. */
  readonly fileHash: string;
  /** What the `*.sealed` / `*.signed` event records of the signature (format, certificate, timestamp). */
  readonly details: Record<string, string | number | boolean>;
}

/** What the envelope operations need of the signer that runs them. */
export interface EnvelopeKit {
  readonly library: FontLibrary;
  readonly certificate: { readonly subject: string; readonly fingerprint256: string };
  /** Seal at the PAdES level asked for (ETSI.CAdES.detached; DSS for B-LT, document timestamp for B-LTA). */
  seal(request: SealRequest): Promise<Sealed>;
  readonly info?: RepairLog;
}

/** A signer's revision of an envelope's document. */
export interface SignRevisionInput {
  /** The document as it stands (the original, or the last signer's revision). */
  readonly bytes: Buffer;
  readonly auditId: string;
  readonly fileName: string;
  readonly signer: TSigner;
  readonly signature: TSignature;
  readonly initials?: TSignature;
  readonly fields: readonly FilledField[];
  readonly reason: string;
  readonly padesLevel?: TPadesLevel;
}

/** An appended revision or completion and the facts about it. */
export interface EnvelopeResult {
  readonly bytes: Buffer;
  readonly fileHash: string;
  readonly signedAt: string;
  readonly pageCount: number;
  readonly events: TAuditEvent[];
}

/** The certificate of completion's facts, and the document it completes. */
export interface CompleteEnvelopeInput {
  /** The last signer's revision. */
  readonly bytes: Buffer;
  readonly auditId: string;
  readonly envelopeId: string;
  readonly fileName: string;
  readonly subject: string;
  readonly senderEmail: string;
  readonly createdAt: string;
  readonly originalHash: string;
  readonly recipients: readonly TCertificateRecipient[];
  readonly padesLevel?: TPadesLevel;
}

/** Revision 0 of an envelope's document: the original with every field, the certificate's pages and the metadata. */
export interface PrepareEnvelopeInput {
  /** The original upload. */
  readonly bytes: Buffer;
  readonly auditId: string;
  readonly envelopeId: string;
  readonly fileName: string;
  readonly subject: string;
  readonly senderEmail: string;
  readonly createdAt: string;
  readonly originalHash: string;
  readonly recipients: readonly {
    readonly name: string;
    readonly email: string;
    readonly role: TRecipientRole;
    readonly order: number;
    readonly fields: readonly TEnvelopeField[];
  }[];
}

/** Revision 0 and its facts. */
export interface PreparedEnvelope {
  readonly bytes: Buffer;
  readonly fileHash: string;
  readonly pageCount: number;
  readonly certificatePages: number;
  readonly events: TAuditEvent[];
}

export interface MarkIncompleteInput {
  readonly bytes: Buffer;
  readonly note: string;
}

/** What the envelope requests run, in a signing worker (or in-process). */
export interface EnvelopeOperations {
  signRevision(input: SignRevisionInput, network?: Network): Promise<EnvelopeResult>;
  completeEnvelope(input: CompleteEnvelopeInput, network?: Network): Promise<EnvelopeResult>;
  markIncomplete(input: MarkIncompleteInput): Promise<{ bytes: Buffer }>;
  prepareEnvelope(input: PrepareEnvelopeInput): Promise<PreparedEnvelope>;
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * Load an envelope's document to append to it: every revision, the original's included, is an
 * incremental update that leaves every earlier byte as it was. A document that had to be rewritten
 * (repaired or decrypted) can be appended to only when it carries no signature yet (the original):
 * its first revision is then a rewritten file; one that carries signatures is refused, since they
 * would no longer verify.
 */
const loadForAppending = async (bytes: Buffer, info: RepairLog | undefined) => {
  const { doc, repaired } = await loadPdf(bytes, { log: info });
  const signatures = countSignatures(doc);
  if (repaired && signatures > 0) {
    throw new ServiceError(
      'invalid_argument',
      `file: the signed document is damaged (${repaired}): appending to it would break its signatures`,
      'file',
    );
  }
  const base = repaired ? undefined : prepareIncrementalUpdate(doc, bytes);
  mendDocument(doc);
  return { doc, base, signatures, repaired };
};

/** The signer's revision, the certificate of completion and the marked copy, over a signer's kit. */
export const createEnvelopeOperations = (kit: EnvelopeKit): EnvelopeOperations => {
  /**
   * Complete a prepared envelope by form fill-in and signing only: the certificate's body fields get
   * every recipient and event, and the prepared `seal` field the service's seal.
   */
  const completePrepared = async (options: {
    input: CompleteEnvelopeInput;
    network: Network | undefined;
    doc: PDFDocument;
    base: UpdateBase | undefined;
    signatures: number;
    sourceHash: string;
    sealField: PDFDict;
    bodies: readonly PDFDict[];
  }): Promise<EnvelopeResult> => {
    const { input, network, doc, base, signatures, sourceHash, sealField, bodies } = options;
    const fonts = createDocumentFonts(doc);
    const completedAt = new Date().toISOString();
    const grey = '0.3 0.3 0.3 rg';
    const items: BodyItem[] = [
      { text: `Completed (UTC): ${utc(completedAt)}`, gapAfter: 3 },
      { text: `Sealing certificate: ${kit.certificate.subject.replace(/\n/g, ', ')}`, color: grey },
      {
        text: `Certificate SHA-256 fingerprint: ${kit.certificate.fingerprint256}`,
        color: grey,
        gapAfter: 8,
      },
    ];
    const recipients = [...input.recipients].sort((a, b) => a.order - b.order);
    for (const recipient of recipients) {
      items.push({ text: `${recipient.name} <${recipient.email}>`, scale: 1.15, gapAfter: 1 });
      items.push({
        text: `${ROLE_NAMES[recipient.role]}, group ${recipient.order}, status: ${recipient.status}`,
        color: grey,
        gapAfter: 2,
      });
      if (recipient.events.length === 0)
        items.push({ text: 'No events.', indent: 10, scale: 0.9, gapAfter: 2 });
      for (const event of recipient.events) {
        items.push({ text: `${utc(event.at)}  ${event.event}`, indent: 10, scale: 0.95 });
        // Who replaced whom, say.
        if (event.note) items.push({ text: event.note, indent: 10, scale: 0.9 });
        items.push({
          text: `IP address: ${event.ipAddress ?? '(none)'}`,
          indent: 10,
          scale: 0.9,
          color: grey,
        });
        items.push({
          text: `User agent: ${event.userAgent ?? '(none)'}`,
          indent: 10,
          scale: 0.9,
          color: grey,
          gapAfter: 2,
        });
      }
      items.push({ text: ' ', scale: 0.6, gapAfter: 4 });
    }
    const bodySize = fillCertificateFields({ doc, fields: bodies, items, library: kit.library, fonts });
    await fonts.finish();
    const pages = doc.getPages();
    const sealPageRef = sealField.get(PDFName.of('P'));
    const page = pages.find((p) => p.ref === sealPageRef) ?? pages[pages.length - 1];
    if (!page) throw new ServiceError('invalid_argument', 'file: the document has no pages', 'file');
    const signedAt = new Date().toISOString();
    const sealed = await kit.seal({
      doc,
      page,
      base,
      signedAt,
      signerName: 'E-signature service',
      reason: `Envelope ${input.envelopeId} completed (audit ID ${input.auditId})`,
      contactInfo: input.senderEmail,
      fieldName: SEAL_FIELD,
      field: sealField,
      padesLevel: input.padesLevel ?? 'B-T',
      ...(network ? { network } : {}),
    });
    return {
      bytes: sealed.bytes,
      fileHash: sealed.fileHash,
      signedAt,
      pageCount: pages.length,
      events: [
        {
          event: 'certificate.filled',
          timestamp: completedAt,
          details: {
            envelopeId: input.envelopeId,
            recipients: input.recipients.length,
            certificateFields: bodies.length,
            fontSize: bodySize,
          },
        },
        {
          event: 'document.sealed',
          timestamp: signedAt,
          details: {
            sourceHash,
            fileHash: sealed.fileHash,
            pageCount: pages.length,
            priorSignatures: signatures,
            appended: base !== undefined,
            filledIn: 'form',
            ...sealed.details,
          },
        },
      ],
    };
  };

  return {
    async signRevision(input, network): Promise<EnvelopeResult> {
      const sourceHash = sha256(input.bytes);
      const { doc, base, signatures, repaired } = await loadForAppending(input.bytes, kit.info);
      const pages = doc.getPages();
      checkFields(input.fields, pages, input.initials !== undefined);
      const fonts = createDocumentFonts(doc);
      const signature = await prepareSignature(doc, input.signature, kit.library);
      const wantsInitials = input.fields.some((f) => f.field.type === 'initials');
      const initials =
        input.initials && wantsInitials
          ? await prepareSignature(doc, input.initials, kit.library)
          : undefined;
      // A prepared document (revision 0 made its form) is filled in; an older one gets the fields drawn.
      const form = formFields(doc);
      const filling = isPrepared(form);
      let signatureField: PDFDict | undefined;
      if (filling) {
        const targets = matchFields(doc, form, input.fields);
        signatureField = fillFields({
          doc,
          filled: input.fields,
          targets,
          signature,
          initials,
          library: kit.library,
          fonts,
        });
        if (signatureField?.get(PDFName.of('V')) !== undefined) {
          throw new ServiceError(
            'invalid_argument',
            "fields: the signer's signature field is already signed",
            'fields',
          );
        }
      } else {
        drawFields({ pages, fields: input.fields, signature, initials, library: kit.library, fonts });
      }
      const filledAt = new Date().toISOString();
      await fonts.finish();
      const fieldPages = [...new Set(input.fields.map((f) => f.field.page + 1))].sort((a, b) => a - b);
      const firstSignature = input.fields.find((f) => f.field.type === 'signature') ?? input.fields[0];
      const page = pages[firstSignature?.field.page ?? 0] ?? pages[0];
      if (!page) throw new ServiceError('invalid_argument', 'file: the document has no pages', 'file');
      const signedAt = new Date().toISOString();
      // The file's n-th signature (the original's own and document timestamps count too).
      const signatureIndex = signatures + 1;
      const sealed = await kit.seal({
        doc,
        page,
        base,
        signedAt,
        signerName: input.signer.name,
        reason: input.reason || `Signed by ${input.signer.name}`,
        contactInfo: input.signer.email,
        fieldName: `Signature ${signatureIndex} ${input.auditId}`,
        ...(signatureField ? { field: signatureField } : {}),
        padesLevel: input.padesLevel ?? 'B-T',
        ...(network ? { network } : {}),
      });
      const counts = new Map<string, number>();
      for (const { field, value } of input.fields) {
        if (
          field.type === 'checkbox'
            ? value === true
            : field.type === 'signature' || field.type === 'initials' || value !== undefined
        )
          counts.set(field.type, (counts.get(field.type) ?? 0) + 1);
      }
      return {
        bytes: sealed.bytes,
        fileHash: sealed.fileHash,
        signedAt,
        pageCount: pages.length,
        events: [
          {
            event: 'fields.filled',
            timestamp: filledAt,
            details: {
              signerEmail: input.signer.email,
              fields: input.fields.length,
              filled: [...counts].map(([type, n]) => `${type}:${n}`).join(','),
              pages: fieldPages.join(','),
              mode: input.signature.mode,
              filledIn: filling ? 'form' : 'drawn',
              ...(initials && input.initials ? { initialsMode: input.initials.mode } : {}),
            },
          },
          {
            event: 'revision.signed',
            timestamp: signedAt,
            details: {
              sourceHash,
              fileHash: sealed.fileHash,
              signatureIndex,
              priorSignatures: signatures,
              // The earlier bytes are kept as they were (false only for a repaired original).
              appended: base !== undefined,
              ...(repaired ? { repaired: true, repairReason: repaired } : {}),
              ...sealed.details,
            },
          },
        ],
      };
    },

    async completeEnvelope(input, network): Promise<EnvelopeResult> {
      const sourceHash = sha256(input.bytes);
      const { doc, base, signatures } = await loadForAppending(input.bytes, kit.info);
      const form = formFields(doc);
      const sealField = form.get(SEAL_FIELD);
      const bodies: PDFDict[] = [];
      for (
        let body = form.get(certificateFieldName(0));
        body;
        body = form.get(certificateFieldName(bodies.length))
      )
        bodies.push(body);
      if (sealField && bodies.length > 0) {
        return completePrepared({ input, network, doc, base, signatures, sourceHash, sealField, bodies });
      }
      const documentPages = doc.getPageCount();
      const fonts = createDocumentFonts(doc);
      const completedAt = new Date().toISOString();
      const certificatePages = addCertificatePages({
        doc,
        facts: {
          envelopeId: input.envelopeId,
          auditId: input.auditId,
          fileName: input.fileName,
          subject: input.subject,
          senderEmail: input.senderEmail,
          createdAt: input.createdAt,
          completedAt,
          originalHash: input.originalHash,
          recipients: input.recipients,
          certificate: kit.certificate,
        },
        library: kit.library,
        fonts,
      });
      const signers = input.recipients.filter((r) => r.role === 'signer');
      writeMetadata(doc, {
        entries: [
          ['AuditId', input.auditId],
          ['EnvelopeId', input.envelopeId],
          ['OriginalFileName', input.fileName],
          ['OriginalSHA256', input.originalHash],
          ['SenderEmail', input.senderEmail],
          ['CreatedAt', input.createdAt],
          ['CompletedAt', completedAt],
          ['SignerNames', signers.map((r) => r.name).join('; ')],
          ['SignerEmails', signers.map((r) => r.email).join('; ')],
          ['Recipients', String(input.recipients.length)],
          ['SignatureCount', String(signatures)],
        ],
        subject: `${input.subject} (envelope ${input.envelopeId}, audit ID ${input.auditId})`,
        keywords: `e-signature; envelope ${input.envelopeId}; audit ID ${input.auditId}`,
        modifiedAt: completedAt,
      });
      await fonts.finish();
      const [first] = certificatePages;
      if (!first) throw new Error('the certificate of completion has no page');
      const signedAt = new Date().toISOString();
      const sealed = await kit.seal({
        doc,
        page: first,
        base,
        signedAt,
        signerName: 'E-signature service',
        reason: `Envelope ${input.envelopeId} completed (audit ID ${input.auditId})`,
        contactInfo: input.senderEmail,
        fieldName: `Seal ${input.auditId}`,
        padesLevel: input.padesLevel ?? 'B-T',
        ...(network ? { network } : {}),
      });
      const pageCount = documentPages + certificatePages.length;
      return {
        bytes: sealed.bytes,
        fileHash: sealed.fileHash,
        signedAt,
        pageCount,
        events: [
          {
            event: 'certificate.added',
            timestamp: completedAt,
            details: {
              envelopeId: input.envelopeId,
              recipients: input.recipients.length,
              certificatePages: certificatePages.length,
              documentPages,
            },
          },
          {
            event: 'document.sealed',
            timestamp: signedAt,
            details: {
              sourceHash,
              fileHash: sealed.fileHash,
              pageCount,
              priorSignatures: signatures,
              appended: base !== undefined,
              ...sealed.details,
            },
          },
        ],
      };
    },

    async prepareEnvelope(input): Promise<PreparedEnvelope> {
      const { doc, repaired } = await loadPdf(input.bytes, { log: kit.info });
      const signatures = countSignatures(doc);
      if (repaired && signatures > 0) {
        throw new ServiceError(
          'invalid_argument',
          `file: the signed document is damaged (${repaired}): appending to it would break its signatures`,
          'file',
        );
      }
      // An unsigned original is rewritten (nothing to keep valid yet); a signed one is appended to.
      const base = signatures > 0 ? prepareIncrementalUpdate(doc, input.bytes) : undefined;
      mendDocument(doc);
      const documentPages = doc.getPageCount();
      const fonts = createDocumentFonts(doc);
      const fields = addRecipientFields({ doc, recipients: input.recipients, fonts });
      const bodies = addCertificateTemplate({
        doc,
        header: {
          envelopeId: input.envelopeId,
          auditId: input.auditId,
          fileName: input.fileName,
          subject: input.subject,
          senderEmail: input.senderEmail,
          createdAt: input.createdAt,
          originalHash: input.originalHash,
        },
        recipients: input.recipients.length,
        library: kit.library,
        fonts,
      });
      addCertificateFields({ doc, bodies, fonts });
      const preparedAt = new Date().toISOString();
      const signers = input.recipients.filter((r) => r.role === 'signer');
      writeMetadata(doc, {
        entries: [
          ['AuditId', input.auditId],
          ['EnvelopeId', input.envelopeId],
          ['OriginalFileName', input.fileName],
          ['OriginalSHA256', input.originalHash],
          ['SenderEmail', input.senderEmail],
          ['CreatedAt', input.createdAt],
          ['SignerNames', signers.map((r) => r.name).join('; ')],
          ['SignerEmails', signers.map((r) => r.email).join('; ')],
          ['Recipients', String(input.recipients.length)],
        ],
        subject: `${input.subject} (envelope ${input.envelopeId}, audit ID ${input.auditId})`,
        keywords: `e-signature; envelope ${input.envelopeId}; audit ID ${input.auditId}`,
        modifiedAt: preparedAt,
      });
      await fonts.finish();
      await doc.flush();
      const { file } = serializePdf(doc.context, undefined, base);
      const pageCount = doc.getPageCount();
      return {
        bytes: file,
        fileHash: sha256(file),
        pageCount,
        certificatePages: bodies.length,
        events: [
          {
            event: 'envelope.prepared',
            timestamp: preparedAt,
            details: {
              envelopeId: input.envelopeId,
              sourceHash: sha256(input.bytes),
              documentPages,
              certificatePages: bodies.length,
              fields,
              appended: base !== undefined,
              ...(repaired ? { repaired: true, repairReason: repaired } : {}),
            },
          },
        ],
      };
    },

    async markIncomplete(input) {
      const { doc } = await loadPdf(input.bytes, { log: kit.info });
      mendDocument(doc);
      const fonts = createDocumentFonts(doc);
      markPagesIncomplete({ doc, note: input.note, library: kit.library, fonts });
      await fonts.finish();
      const saved = await doc.save({ useObjectStreams: false });
      return { bytes: Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength) };
    },
  };
};

/**
 * Each page's size as a person sees it (after /Rotate, within the crop box), in points, rounded to
 * hundredths: what field boxes are checked against.
 */
export const pageSizesOf = (doc: PDFDocument): { width: number; height: number }[] =>
  doc.getPages().map((page) => {
    const frame = pageFrameOf(page);
    return { width: Math.round(frame.width * 100) / 100, height: Math.round(frame.height * 100) / 100 };
  });

/** `sha256:<hex>` of bytes as the signer hashes uploads. */
export const fileHashOf = sha256;

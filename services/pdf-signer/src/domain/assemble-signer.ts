import { createHash } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import type { TAuditEvent, TDocumentKind, TPosition, TSignature, TSigner } from '@esign/contracts';
import { addAuditPage } from './audit/add-audit-page';
import { appendDocumentTimestamp, appendDss, certificatesOfCms } from './ltv/append-dss';
import type { AuditFacts } from './audit/add-audit-page';
import { convertImageToPdf } from './stamp/convert-image-to-pdf';
import { loadFontLibrary } from './layout/font-library';
import { damagedDocument, isPdfLibraryFailure } from './document/classify-pdf-failure';
import { loadPdf } from './document/load-pdf';
import type { LoadedPdf, RepairLog } from './document/load-pdf';
import { loadSigningIdentity } from './cms/load-signing-identity';
import type { SigningMaterial } from './cms/load-signing-identity';
import { countSignatures, prepareIncrementalUpdate } from './document/incremental-update';
import { mendDocument } from './document/mend-document';
import { createDocumentFonts } from './layout/page-content';
import { isQpdfAvailable } from './document/repair-pdf';
import type { LtvObserver, RevocationFetcher, TimestampAuthority } from './ltv/ports';
import { createTimestamper } from './ltv/request-timestamp';
import type { SignatureTimestamp } from './ltv/request-timestamp';
import { createRevocationCache } from './ltv/revocation';
import type { RevocationCache } from './ltv/revocation';
import { PADES_SUBFILTER, sealPdf, signaturePlaceholderBytes, SIGNATURE_SUBFILTER } from './cms/seal-pdf';
import { createEnvelopeOperations } from './envelope/envelope-operations';
import type { EnvelopeOperations, SealRequest, Sealed } from './envelope/envelope-operations';
import { checkPositions, prepareSignature, stampSignatures } from './stamp/stamp-signatures';
import { writeAuditMetadata } from './audit/write-audit-metadata';

/**
 * What a signer is put together from. Everything expensive (fonts, key, certificate) happens once,
 * here. The network (TSAs, OCSP responders, CRL servers) comes in as ports (`./ltv/ports`); the
 * HTTP adapters are wired in `src/create-signer.ts`.
 */
export interface AssembleSignerOptions {
  /** PEM key and certificate; without them a self-signed development certificate is made up. */
  readonly signing?: SigningMaterial;
  /** Where start-up warnings go (the development certificate is one). */
  readonly warn?: (message: string, fields?: Record<string, unknown>) => void;
  /** Where the repair fallback says what it did (reason, outcome, time; never user data). */
  readonly info?: RepairLog;
  /** `signing` is a development certificate made up elsewhere (the pool makes one for all its workers). */
  readonly development?: boolean;
  /**
   * The TSAs that timestamp every signature (PAdES B-T), asked in order, and the largest token the
   * signature leaves room for. Without them (or with none) signatures carry no timestamp: for tests
   * of other things only.
   */
  readonly timestamps?: {
    readonly authorities: readonly TimestampAuthority[];
    readonly maxTokenBytes: number;
  };
  /**
   * Revocation data (OCSP, else CRL) of the signing chain and of the TSA's certificates, for the DSS
   * (PAdES B-LT), fetched through `fetcher`: at creation and refreshed in the background (every
   * `refreshMs` without a nextUpdate), never while signing. A certificate found revoked makes every
   * signing fail (`unavailable`). Without it, none is fetched.
   */
  readonly revocation?: { readonly fetcher: RevocationFetcher; readonly refreshMs?: number };
  /** Where a revoked certificate is reported (falls back to `warn`). */
  readonly error?: (message: string, fields?: Record<string, unknown>) => void;
  /** Told of every TSA, OCSP and CRL request and of the certificates' and answers' expiry (metrics). */
  readonly observer?: LtvObserver;
}

/** One document to sign: the original bytes and what the signer did. */
export interface SignInput {
  readonly bytes: Buffer;
  readonly kind: TDocumentKind;
  readonly fileName: string;
  readonly signature: TSignature;
  readonly positions: readonly TPosition[];
  readonly signer: TSigner;
  /** When the upload arrived (ISO 8601), for the audit log. */
  readonly receivedAt: string;
  /** Use this audit ID instead of a new one (tests, replays). */
  readonly auditId?: string;
  /**
   * Public base URL of the service (no trailing slash): the audit page prints
   * `<verifyBaseUrl>/verify/<auditId>` and a QR code of it. Without it, neither.
   */
  readonly verifyBaseUrl?: string;
  /**
   * `B-LT`: after the signature, an incremental update adds a DSS with the certificates of the signing
   * chain and of the timestamp (PAdES B-LT); `B-LTA`: then a document timestamp over the whole file in
   * one more update (needs timestamps on). Default `B-T`: the signature and its timestamp only.
   */
  readonly padesLevel?: TPadesLevel;
}

/** PAdES baseline levels this signer writes. */
export type TPadesLevel = 'B-T' | 'B-LT' | 'B-LTA';

/** The signed PDF and the facts about it. */
export interface SignResult {
  /** The sealed PDF, byte for byte what `fileHash` covers. */
  readonly bytes: Buffer;
  readonly auditId: string;
  /** ISO 8601 UTC with `Z`. */
  readonly signedAt: string;
  /** `sha256:<hex>` of `bytes`. */
  readonly fileHash: string;
  /** `sha256:<hex>` of the input. */
  readonly originalHash: string;
  /** Pages of the signed PDF, the audit page included. */
  readonly pageCount: number;
  /** document.uploaded, signature.applied, document.sealed, in that order. */
  readonly events: TAuditEvent[];
  /** The signature's RFC 3161 timestamp (absent when time-stamping is off). */
  readonly timestamp?: Omit<SignatureTimestamp, 'token'>;
}

/** The public verification page of a document. */
export const verifyUrlFor = (baseUrl: string, auditId: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/verify/${auditId}`;

/** What the caller of one signing is told while it runs (a signing worker tells its pool). */
export interface SignHooks {
  /**
   * Wraps every wait of this signing on the network (its TSA tokens): `request` starts it, and the
   * signing computes nothing until the promise settles. A signing worker marks the job as waiting
   * meanwhile, so that its pool may hand the worker another job.
   */
  network?<T>(request: () => Promise<T>): Promise<T>;
  /**
   * Sign without asking any TSA, even when time-stamping is on: the signature carries no timestamp
   * (and B-LTA no document timestamp: it is written as B-LT). For the service's own start-up
   * warm-up only (`SIGN_WARM_UP_MS`), which must reach no TSA and whose document goes nowhere.
   */
  readonly offline?: boolean;
}

/** Signs documents in-process: the same code the `pdf.sign` handler runs. */
export interface Signer {
  sign(input: SignInput, hooks?: SignHooks): Promise<SignResult>;
  /** SHA-256 fingerprint (`AB:CD:…`) of the sealing certificate. */
  readonly certificateFingerprint: string;
  /** True when sealing with the made-up development certificate. */
  readonly developmentCertificate: boolean;
  /** The revocation cache (absent when revocation data is off), for tests and diagnostics. */
  readonly revocation?: RevocationCache;
  /** Envelopes: a signer's revision, the certificate of completion and seal, a copy marked incomplete. */
  readonly envelopes: EnvelopeOperations;
}

/**
 * SHA-256 of the original, on this thread and over the bytes in place. (WebCrypto's `digest` would
 * run on libuv's pool, but copies its input first: 20 MB more for a 20 MB upload, for a hash that
 * costs the same CPU wherever it runs.)
 */
const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Revocation data as the DSS stores it. */
type RevocationBytes = { readonly ocsps: readonly Buffer[]; readonly crls: readonly Buffer[] };

/** DER bytes of certificates and their revocation data. */
const derBytes = (certificates: readonly Buffer[], revocation?: RevocationBytes): number =>
  [...certificates, ...(revocation?.ocsps ?? []), ...(revocation?.crls ?? [])].reduce(
    (sum, der) => sum + der.length,
    0,
  );

/**
 * Assemble a signer: parse the key and certificate (or make up a development one), read and parse the
 * fonts, measure the signature placeholder. `sign` then turns an uploaded PDF, PNG or JPEG into a
 * signed PDF: stamps at the positions, an audit page, audit metadata, and a digital signature over
 * the whole file.
 */
export const assembleSigner = async (options: AssembleSignerOptions = {}): Promise<Signer> => {
  const identity = loadSigningIdentity(options.signing, options.warn, options.development);
  const library = await loadFontLibrary();
  const timestamps =
    options.timestamps && options.timestamps.authorities.length > 0 ? options.timestamps : undefined;
  const requestTimestamp =
    timestamps && createTimestamper({ ...timestamps, observer: options.observer }, options.warn);
  const placeholderBytes = await signaturePlaceholderBytes(identity, timestamps?.maxTokenBytes);
  // A document timestamp's /Contents is the token alone.
  const documentTimestampBytes = (timestamps?.maxTokenBytes ?? 0) + 64;
  const certificateSubject = identity.subject;
  const revocation =
    options.revocation &&
    createRevocationCache(
      { ...options.revocation, observer: options.observer },
      {
        warn: options.warn,
        error: options.error ?? options.warn,
      },
    );
  // At start-up: the signing chain's OCSP responses or CRLs, each within its timeout.
  await revocation?.prepare(identity.certificates);
  if (!(await isQpdfAvailable())) {
    options.warn?.(
      'qpdf is not installed: encrypted (owner password only) and damaged PDFs that it would repair are refused',
    );
  }

  const sign = async (input: SignInput, hooks?: SignHooks): Promise<SignResult> => {
    try {
      return await signDocument(input, hooks?.network ? hooks.network.bind(hooks) : undefined, {
        offline: hooks?.offline === true,
      });
    } catch (err) {
      // Our own documents (converted images) are never damaged: only an uploaded PDF can be at fault.
      if (input.kind === 'pdf' && isPdfLibraryFailure(err)) throw damagedDocument();
      throw err;
    }
  };

  // What the TSA's certificates and their revocation data took in the last DSS (the next is alike).
  let lastTsaDssBytes = requestTimestamp ? 16 * 1024 : 0;
  /** Bytes the DSS update will take at most, but for an unusually large catalog: room to leave for it. */
  const dssRoomFor = (chain: RevocationBytes | undefined): number =>
    derBytes(identity.certificates, chain) + lastTsaDssBytes + 16 * 1024;

  const signDocument = async (
    input: SignInput,
    network: (<T>(request: () => Promise<T>) => Promise<T>) | undefined,
    { offline }: { offline: boolean },
  ): Promise<SignResult> => {
    // An offline signing asks no TSA (SignHooks.offline): as if time-stamping were off.
    const stamper = offline ? undefined : requestTimestamp;
    // A TSA token: awaited on the network, so marked as such for the caller (see SignHooks).
    const timestampOver = (bytes: Buffer): Promise<SignatureTimestamp> => {
      if (!stamper) throw new Error('time-stamping is off');
      return network ? network(() => stamper(bytes)) : stamper(bytes);
    };
    const received = new Date(input.receivedAt);
    if (Number.isNaN(received.getTime())) {
      throw new ServiceError('invalid_argument', 'receivedAt: not an ISO 8601 timestamp', 'receivedAt');
    }
    // Shown as UTC like signedAt, whatever offset the caller wrote it with.
    const receivedAt = received.toISOString();
    const auditId = input.auditId ?? newAuditId();
    // A revoked signing certificate: refuse before any work (throws `unavailable`).
    const chainRevocation = revocation?.dataFor(identity.certificates);
    const originalHash = sha256(input.bytes);
    const { doc, repaired }: LoadedPdf =
      input.kind === 'pdf'
        ? await loadPdf(input.bytes, { log: options.info })
        : { doc: await convertImageToPdf(input.bytes) };
    // A document signed before is signed by appending to it, so that its earlier signatures still
    // verify; one that had to be repaired or decrypted was rewritten already, so its signatures
    // cannot verify any more and it is written anew.
    const signatures = input.kind === 'pdf' ? countSignatures(doc) : 0;
    const priorSignatures = repaired ? 0 : signatures;
    const base = priorSignatures > 0 ? prepareIncrementalUpdate(doc, input.bytes) : undefined;
    mendDocument(doc);
    const pages = doc.getPages();
    const originalPageCount = pages.length;
    checkPositions(input.positions, originalPageCount);

    const fonts = createDocumentFonts(doc);
    const prepared = await prepareSignature(doc, input.signature, library);
    stampSignatures({ pages, positions: input.positions, signature: prepared, fonts });
    const appliedAt = new Date().toISOString();
    const signedPages = [...new Set(input.positions.map((p) => p.page + 1))].sort((a, b) => a - b);

    const signedAt = new Date().toISOString();
    const facts: AuditFacts = {
      auditId,
      fileName: input.fileName,
      signer: input.signer,
      signedAt,
      receivedAt,
      originalHash,
      mode: input.signature.mode,
      signatureCount: input.positions.length,
      signedPages,
      originalPageCount,
      certificate: { subject: certificateSubject, fingerprint256: identity.fingerprint256 },
      timestamped: stamper !== undefined,
      ...(input.verifyBaseUrl ? { verifyUrl: verifyUrlFor(input.verifyBaseUrl, auditId) } : {}),
    };
    const auditPage = addAuditPage({ doc, facts, library, fonts });
    writeAuditMetadata(doc, facts);
    await fonts.finish();
    // Set by the timestamp request, which runs inside sealPdf once the signature value exists.
    const stamped: { value?: SignatureTimestamp } = {};
    const sealed = await sealPdf({
      doc,
      page: auditPage,
      // Room for the DSS update (B-LT) after the seal, so that it is written without copying the file.
      spareBytes:
        input.padesLevel === 'B-LT' || input.padesLevel === 'B-LTA' ? dssRoomFor(chainRevocation) : 0,
      identity,
      placeholderBytes,
      signedAt,
      signerName: input.signer.name,
      reason: `Signed by ${input.signer.name} (audit ID ${auditId})`,
      contactInfo: input.signer.email,
      fieldName: `Signature ${auditId}`,
      base,
      timestamp: stamper
        ? async (signatureValue) => {
            stamped.value = await timestampOver(signatureValue);
            return stamped.value.token;
          }
        : undefined,
    });
    let { file: bytes, sha256: fileHash } = sealed;
    const tsaCertificates = stamped.value ? certificatesOfCms(stamped.value.token) : [];
    // The TSA's certificates are known from its token only: their revocation data is fetched in the
    // background the first time they are seen (that first document goes without it), then cached
    // and refreshed like the signing chain's. A revoked TSA certificate refuses the seal.
    revocation?.notice(tsaCertificates);
    const tsaRevocation = revocation?.dataFor(tsaCertificates);
    // An offline signing has no TSA certificates to measure: the next DSS is sized by the last token's.
    if (stamped.value) lastTsaDssBytes = derBytes(tsaCertificates, tsaRevocation);
    // Offline, B-LTA is written as B-LT: its document timestamp would need a TSA.
    const padesLevel = offline && input.padesLevel === 'B-LTA' ? 'B-LT' : input.padesLevel;
    if (padesLevel === 'B-LT' || padesLevel === 'B-LTA') {
      const sealedLength = bytes.length;
      bytes = appendDss({
        doc,
        file: bytes,
        certificates: [...identity.certificates, ...tsaCertificates],
        ocsps: [...(chainRevocation?.ocsps ?? []), ...(tsaRevocation?.ocsps ?? [])],
        crls: [...(chainRevocation?.crls ?? []), ...(tsaRevocation?.crls ?? [])],
      });
      if (padesLevel === 'B-LTA') {
        if (!stamper) throw new Error('PAdES B-LTA needs time-stamping authorities (TSA_URLS)');
        bytes = await appendDocumentTimestamp({
          doc,
          file: bytes,
          page: auditPage,
          fieldName: `Document timestamp ${auditId}`,
          placeholderBytes: documentTimestampBytes,
          timestamp: async (covered) => (await timestampOver(covered)).token,
        });
      }
      // The sealed file's hash continued over what was appended, not computed again.
      fileHash = `sha256:${sealed.hash.update(bytes.subarray(sealedLength)).digest('hex')}`;
    }
    const pageCount = originalPageCount + 1;
    const timestamp = stamped.value;
    return {
      bytes,
      auditId,
      signedAt,
      fileHash,
      originalHash,
      pageCount,
      events: [
        {
          event: 'document.uploaded',
          timestamp: input.receivedAt,
          details: { fileName: input.fileName, kind: input.kind, size: input.bytes.length, originalHash },
        },
        {
          event: 'signature.applied',
          timestamp: appliedAt,
          details: {
            mode: input.signature.mode,
            signatures: input.positions.length,
            pages: signedPages.join(','),
          },
        },
        {
          event: 'document.sealed',
          timestamp: signedAt,
          details: {
            fileHash,
            certificateSha256: identity.fingerprint256,
            signatureFormat: SIGNATURE_SUBFILTER,
            pageCount,
            // Earlier digital signatures kept intact (the document was sealed as an incremental update).
            priorSignatures,
            padesLevel: padesLevel ?? 'B-T',
            // The RFC 3161 timestamp embedded in the signature: the TSA's time and who it is.
            ...(timestamp
              ? {
                  timestampTime: timestamp.time,
                  timestampAuthority: timestamp.authority,
                  timestampUrl: timestamp.url,
                }
              : {}),
            // Rewritten by qpdf first (decrypted or reconstructed); earlier signatures then no longer verify.
            ...(repaired
              ? { repaired: true, repairReason: repaired, invalidatedSignatures: signatures }
              : {}),
          },
        },
      ],
      ...(timestamp
        ? {
            timestamp: {
              time: timestamp.time,
              authority: timestamp.authority,
              url: timestamp.url,
              tsaMs: timestamp.tsaMs,
            },
          }
        : {}),
    };
  };

  /**
   * Seal an envelope's revision or completion: a PAdES signature (ETSI.CAdES.detached) over the whole
   * file, appended to `base` when given, its timestamp when TSAs are configured, then the DSS (B-LT)
   * and a document timestamp (B-LTA) in updates of their own, as `pdf.sign` seals.
   */
  const sealEnvelope = async (request: SealRequest): Promise<Sealed> => {
    const { network } = request;
    const timestampOver = (bytes: Buffer): Promise<SignatureTimestamp> => {
      if (!requestTimestamp) throw new Error('time-stamping is off');
      return network ? network(() => requestTimestamp(bytes)) : requestTimestamp(bytes);
    };
    const longTerm = request.padesLevel === 'B-LT' || request.padesLevel === 'B-LTA';
    const chainRevocation = revocation?.dataFor(identity.certificates);
    const stamped: { value?: SignatureTimestamp } = {};
    const sealed = await sealPdf({
      doc: request.doc,
      page: request.page,
      spareBytes: longTerm ? dssRoomFor(chainRevocation) : 0,
      identity,
      placeholderBytes,
      signedAt: request.signedAt,
      signerName: request.signerName,
      reason: request.reason,
      contactInfo: request.contactInfo,
      fieldName: request.fieldName,
      base: request.base,
      subFilter: PADES_SUBFILTER,
      ...(request.field ? { field: request.field } : {}),
      timestamp: requestTimestamp
        ? async (signatureValue) => {
            stamped.value = await timestampOver(signatureValue);
            return stamped.value.token;
          }
        : undefined,
    });
    let { file: bytes, sha256: fileHash } = sealed;
    const tsaCertificates = stamped.value ? certificatesOfCms(stamped.value.token) : [];
    revocation?.notice(tsaCertificates);
    const tsaRevocation = revocation?.dataFor(tsaCertificates);
    lastTsaDssBytes = derBytes(tsaCertificates, tsaRevocation);
    if (longTerm) {
      const sealedLength = bytes.length;
      bytes = appendDss({
        doc: request.doc,
        file: bytes,
        certificates: [...identity.certificates, ...tsaCertificates],
        ocsps: [...(chainRevocation?.ocsps ?? []), ...(tsaRevocation?.ocsps ?? [])],
        crls: [...(chainRevocation?.crls ?? []), ...(tsaRevocation?.crls ?? [])],
      });
      if (request.padesLevel === 'B-LTA') {
        if (!requestTimestamp) throw new Error('PAdES B-LTA needs time-stamping authorities (TSA_URLS)');
        bytes = await appendDocumentTimestamp({
          doc: request.doc,
          file: bytes,
          page: request.page,
          fieldName: `Document timestamp ${request.fieldName}`,
          placeholderBytes: documentTimestampBytes,
          timestamp: async (covered) => (await timestampOver(covered)).token,
        });
      }
      fileHash = `sha256:${sealed.hash.update(bytes.subarray(sealedLength)).digest('hex')}`;
    }
    const timestamp = stamped.value;
    return {
      bytes,
      fileHash,
      details: {
        certificateSha256: identity.fingerprint256,
        signatureFormat: PADES_SUBFILTER,
        padesLevel: request.padesLevel,
        ...(timestamp
          ? {
              timestampTime: timestamp.time,
              timestampAuthority: timestamp.authority,
              timestampUrl: timestamp.url,
            }
          : {}),
      },
    };
  };
  const envelopeOperations = createEnvelopeOperations({
    library,
    certificate: { subject: certificateSubject, fingerprint256: identity.fingerprint256 },
    seal: sealEnvelope,
    ...(options.info ? { info: options.info } : {}),
  });
  /** A document the signer cannot read is damaged, as for `sign`. */
  const asDamaged = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      if (isPdfLibraryFailure(err)) throw damagedDocument();
      throw err;
    }
  };
  const envelopes: EnvelopeOperations = {
    signRevision: (input, network) => asDamaged(() => envelopeOperations.signRevision(input, network)),
    completeEnvelope: (input, network) =>
      asDamaged(() => envelopeOperations.completeEnvelope(input, network)),
    markIncomplete: (input) => asDamaged(() => envelopeOperations.markIncomplete(input)),
    prepareEnvelope: (input) => asDamaged(() => envelopeOperations.prepareEnvelope(input)),
  };

  return {
    sign,
    envelopes,
    certificateFingerprint: identity.fingerprint256,
    developmentCertificate: identity.development,
    ...(revocation ? { revocation } : {}),
  };
};

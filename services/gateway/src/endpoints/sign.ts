import { PLAN_LIMITS, ServiceError, type TPlan, type TPosition, type TSignature } from '@esign/contracts';
import { SIGNED_PDF_HEADERS } from '../api/common-headers';
import { defineOperation, type FileDeclaration } from '../api/operation';
import { ZIdempotencyHeaders, ZSignFieldReference } from '../api/public-schemas';
import { parseImageDataUri } from '../http/sniff';
import { fingerprintOf } from '../operations/idempotency';
import { signDocument, type SignedDocument } from '../operations/sign-document';
import { planLimitedFile, ZSignFields, type TSignFields } from './sign-fields';
import type { GatewayDeps } from '../deps';
import type { ReceivedFile } from '../http/receive-upload';
import { renderSignReference, signReference, type SignReference } from './sign-reference';

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export const attachment = (fileName: string): string => {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

export const toSignature = (fields: TSignFields): TSignature => {
  if (fields.mode === 'type') {
    return { mode: 'type', typedName: fields.typedName ?? '', color: fields.sigColor.toLowerCase() };
  }
  const image = parseImageDataUri(fields.signatureData ?? '');
  if (!image) {
    throw new ServiceError(
      'invalid_argument',
      'signatureData must be a base64 data URI of a PNG or JPEG image (data:image/png;base64,...)',
      'signatureData',
    );
  }
  return { mode: fields.mode, imageBase64: image.base64 };
};

export const toPositions = (fields: TSignFields): TPosition[] =>
  fields.positions ?? [{ x: fields.x, y: fields.y, page: fields.page, width: fields.width }];

/** The headers of a signed PDF answer. */
export const signedPdfHeaders = (signed: SignedDocument): Record<string, string> => ({
  'Content-Disposition': attachment(signed.downloadName),
  'X-Audit-Id': signed.auditId,
  'X-Signed-At': signed.signedAt,
  'X-File-Hash': signed.fileHash,
  'Cache-Control': 'no-store',
  ...(signed.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
});

/** What a multipart sign request gives the sign workflow (POST /api/v1/sign and the dashboard's). */
interface SignFormInput {
  readonly file: ReceivedFile;
  readonly fields: TSignFields;
  readonly rawFields: Readonly<Record<string, string>>;
  readonly headers: { readonly 'Idempotency-Key'?: string | undefined };
  readonly client: { readonly ip: string; readonly userAgent: string };
  readonly receivedAt: string;
}

/**
 * Runs the sign workflow for a multipart sign request of an account (its plan as the caller's key or
 * session says: a plan without a limit makes no reservation): the signature and positions from the
 * fields, the signer from the fields and the client, the Idempotency-Key with the request's
 * fingerprint. Answered within SIGN_TIMEOUT_MS of the upload being in (plus a short clean-up).
 */
export const signUploadedForm = (
  deps: Pick<GatewayDeps, 'signing' | 'config'>,
  account: { readonly accountId: string; readonly plan: TPlan },
  input: SignFormInput,
): Promise<SignedDocument> => {
  const { file, fields } = input;
  const idempotencyKey = input.headers['Idempotency-Key'];
  return signDocument(deps.signing, {
    deadline: Date.now() + deps.config.SIGN_TIMEOUT_MS,
    accountId: account.accountId,
    unlimitedPlan: PLAN_LIMITS[account.plan].documentsPerMonth === null,
    upload: file,
    signature: toSignature(fields),
    positions: toPositions(fields),
    usedPositions: fields.positions !== undefined,
    signer: {
      name: fields.signerName,
      email: fields.signerEmail,
      ipAddress: input.client.ip,
      userAgent: input.client.userAgent,
    },
    receivedAt: input.receivedAt,
    idempotency: idempotencyKey
      ? { key: idempotencyKey, requestHash: fingerprintOf(file, input.rawFields) }
      : undefined,
  });
};

/**
 * The multipart part of a sign request (POST /api/v1/sign and the dashboard's POST /api/sign): the
 * fields, and a file limited to the caller's plan while it streams.
 */
export const SIGN_MULTIPART: { readonly fields: typeof ZSignFields; readonly file: FileDeclaration } = {
  fields: ZSignFields,
  file: planLimitedFile({
    description: 'PDF, PNG or JPG',
    accept: ['pdf', 'png', 'jpeg'],
    maxBytes: (config) => config.SIGN_MAX_FILE_BYTES,
  }),
};

const SIGN_EXAMPLE = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada Lovelace',
  positions: [{ x: 60, y: 80, page: 0, width: 30 }],
};

export const signDocumentOperation = defineOperation({
  id: 'signDocument',
  method: 'post',
  path: '/api/v1/sign',
  tag: 'Signing',
  summary: 'Sign a document',
  description:
    'Upload a PDF, PNG or JPEG (an image becomes a one-page PDF) with the signature and the signer. The answer is the signed PDF: the signature stamped where asked, an audit page, the audit data in the PDF metadata and a PKCS#7 digital signature over the whole file. The record is durable before the answer starts. Positions are percentages of the page as a person sees it, origin top-left; x and y place the top-left corner of the signature box.',
  auth: 'apiKey',
  idempotent: true,
  request: {
    headers: ZIdempotencyHeaders,
    multipart: SIGN_MULTIPART,
    example: SIGN_EXAMPLE,
  },
  responses: {
    200: { description: 'The signed PDF', binary: 'application/pdf', headers: SIGNED_PDF_HEADERS },
  },
  errors: ['invalid_argument', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { principal, file } = input;
    if (!principal || !file) throw new Error('signDocument needs a principal and a file');
    const started = performance.now();
    const signed = await signUploadedForm(deps, principal, { ...input, file });
    const stream = await deps.signing.openObject(signed.objectKey);
    deps.logger.info(signed.replayed ? 'signed document replayed' : 'document signed', {
      auditId: signed.auditId,
      bytes: file.size,
      ms: Math.round(performance.now() - started),
    });
    return {
      status: 200,
      stream,
      contentType: 'application/pdf',
      size: signed.size,
      headers: signedPdfHeaders(signed),
    };
  },
});

/** The reference depends only on configuration: built once per configuration, not per request. */
const references = new WeakMap<object, { json: SignReference; html: string }>();
const referenceFor = (config: { SIGN_MAX_FILE_BYTES: number }) => {
  let reference = references.get(config);
  if (!reference) {
    const json = signReference({ maxFileBytes: config.SIGN_MAX_FILE_BYTES });
    reference = { json, html: renderSignReference(json) };
    references.set(config, reference);
  }
  return reference;
};

export const signReferenceOperation = defineOperation({
  id: 'getSignReference',
  method: 'get',
  path: '/api/v1/sign',
  tag: 'Signing',
  summary: 'Field reference of POST /api/v1/sign',
  description:
    'An HTML page with a form that signs a document with your key, or, with Accept: application/json, the same reference as JSON. Generated from the schema POST /api/v1/sign validates with.',
  auth: 'none',
  request: {},
  responses: {
    200: { description: 'The field reference', json: ZSignFieldReference, html: true },
  },
  errors: [],
  handle(input, deps) {
    const reference = referenceFor(deps.config);
    return Promise.resolve(
      input.accepts(['html', 'json']) === 'html'
        ? { status: 200, html: reference.html }
        : { status: 200, json: reference.json },
    );
  },
});

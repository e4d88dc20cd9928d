import { z } from 'zod';
import { defineAccountOperation } from '../api/account-operation';
import { SIGNED_PDF_HEADERS } from '../api/common-headers';
import { defineOperation } from '../api/operation';
import { ZIdempotencyHeaders } from '../api/public-schemas';
import { attachment } from '../http/content-disposition';
import type { SignedDocument } from '../operations/sign-document';
import { ZDashboardSigned } from './dashboard.schemas';
import { SIGN_EXAMPLE, SIGN_MULTIPART, signUploadedForm } from './sign-form';
import { renderSignReference, signReference, type SignReference } from './sign-reference';
import { ZSignFieldReference } from './sign.schemas';

/** The headers of a signed PDF answer. */
const signedPdfHeaders = (signed: SignedDocument): Record<string, string> => ({
  'Content-Disposition': attachment(signed.downloadName),
  'X-Audit-Id': signed.auditId,
  'X-Signed-At': signed.signedAt,
  'X-File-Hash': signed.fileHash,
  'Cache-Control': 'no-store',
  ...(signed.replayed ? { 'Idempotent-Replayed': 'true' } : {}),
});

const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

/**
 * Signing an upload: with an API key at POST /api/v1/sign, answered with the signed PDF; from the
 * dashboard at POST /api/sign, answered with where the signed PDF is (the page downloads it).
 */
export const signDocumentOperation = defineAccountOperation({
  mounts: {
    apiKey: { id: 'signDocument', path: '/api/v1/sign', tag: 'Signing' },
    session: {
      id: 'dashboardSign',
      path: '/api/sign',
      tag: 'Dashboard',
      summary: 'Sign a document from the dashboard',
      description:
        "The dashboard's signing (session cookie, Origin of this site and X-CSRF-Token): the same fields and the same sign workflow as POST /api/v1/sign, for every plan (Free and Pro have no API access but sign here), counted against the plan's monthly quota (403 when it is used up) and limited to the plan's file size (413). Answers where the signed PDF is rather than the PDF itself. An `Idempotency-Key` makes a double submit sign once.",
      responses: { 201: { description: 'Signed', json: ZDashboardSigned, headers: NO_STORE_HEADER } },
    },
  },
  method: 'post',
  summary: 'Sign a document',
  description:
    'Upload a PDF, PNG or JPEG (an image becomes a one-page PDF) with the signature and the signer. The answer is the signed PDF: the signature stamped where asked, an audit page, the audit data in the PDF metadata and a PKCS#7 digital signature over the whole file. The record is durable before the answer starts. Positions are percentages of the page as a person sees it, origin top-left; x and y place the top-left corner of the signature box.',
  auth: 'account',
  idempotency: 'domain',
  request: {
    headers: ZIdempotencyHeaders,
    multipart: SIGN_MULTIPART,
    example: SIGN_EXAMPLE,
  },
  responses: {
    200: { description: 'The signed PDF', binary: 'application/pdf', headers: SIGNED_PDF_HEADERS },
  },
  // permission_denied: the plan's monthly quota (a Business key's plan has none).
  errors: ['invalid_argument', 'permission_denied', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { caller, file } = input;
    const started = performance.now();
    const signed = await signUploadedForm(deps, caller, input);
    if (caller.kind === 'session') {
      deps.logger.info('document signed from the dashboard', { auditId: signed.auditId, bytes: file.size });
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store' },
        json: {
          auditId: signed.auditId,
          signedAt: signed.signedAt,
          fileHash: signed.fileHash,
          fileName: signed.downloadName,
          size: signed.size,
          replayed: signed.replayed,
          downloadUrl: `/api/documents/${signed.auditId}/pdf`,
        },
      };
    }
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

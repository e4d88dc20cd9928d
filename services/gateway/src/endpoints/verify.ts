import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { ZIssuedDocumentCheck, ZVerificationReport } from './verify.schemas';
import { checkIssuedDocument } from '../operations/check-issued-document';
import { verifyDocument } from '../operations/verify-document';

export const verifyDocumentOperation = defineOperation({
  id: 'verifyDocument',
  method: 'post',
  path: '/api/v1/verify',
  tag: 'Verification',
  summary: 'Verify a signed PDF (public)',
  description:
    "Anyone may check a PDF, without a key: every digital signature in it (signer, signing time, certificate, whether the CMS signature and the digest of the signed bytes verify, whether it covers the whole file or what was appended after it, its RFC 3161 timestamp) and whether the file is one this service issued (its SHA-256 in our records, with the audit ID and signing time; the signer masked). Trust in a certificate is the verifier's call: the report says which certificate signed and whether it is this service's. Rate-limited per client IP.",
  auth: 'none',
  rateLimit: { bucket: 'verify', perMinute: (config) => config.VERIFY_RATE_LIMIT_PER_MINUTE },
  request: {
    multipart: {
      fields: z.object({}),
      file: {
        name: 'file',
        description: 'The PDF to verify',
        accept: ['pdf'],
        maxBytes: (config) => config.SIGN_MAX_FILE_BYTES,
        // The look-up in our records is by the file's SHA-256, computed while it streams in.
        hash: () => true,
      },
    },
    example: {},
  },
  responses: { 200: { description: 'The verification report', json: ZVerificationReport } },
  errors: ['invalid_argument', 'too_large', 'unavailable', 'internal'],
  async handle({ file }, deps) {
    if (!file?.sha256) throw new Error('verifyDocument needs a hashed file');
    const json = await verifyDocument(deps.verifying, {
      upload: { key: file.key, fileName: file.fileName, sha256: file.sha256 },
    });
    return { status: 200, json };
  },
});

const ZHashQuery = z.object({
  hash: z
    .string()
    .regex(/^sha256:[0-9a-fA-F]{64}$/, 'hash must be sha256: followed by 64 hex digits')
    .optional()
    .meta({ description: 'sha256:<hex> of a copy: whether it is exactly the document issued' }),
});

export const checkIssuedDocumentOperation = defineOperation({
  id: 'getIssuedDocument',
  method: 'get',
  path: '/api/v1/verify/{auditId}',
  tag: 'Verification',
  summary: 'Check an audit ID (public)',
  description:
    'Whether this service issued a document with this audit ID, when it was signed and the SHA-256 of the file it issued; with ?hash=sha256:<hex>, whether a copy someone holds is exactly that file. No key needed; the signer is masked. Unknown audit ID: 404.',
  auth: 'none',
  request: {
    params: z.object({
      auditId: z
        .string()
        .meta({ description: 'The audit ID printed on the audit page', example: 'ESG-7KQ2-M4XP-9D3F' }),
    }),
    query: ZHashQuery,
  },
  responses: { 200: { description: 'The issued document', json: ZIssuedDocumentCheck } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle({ params, query }, deps) {
    const json = await checkIssuedDocument(deps.verifying, { auditId: params.auditId, hash: query.hash });
    return { status: 200, json };
  },
});

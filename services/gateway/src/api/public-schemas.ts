import { z } from 'zod';
import { ZAuditId, ZFileHash, ZIsoTimestamp, ZTemplateFieldType } from '@esign/contracts';

/**
 * The bodies of the public API, each with its own schema: the gateway answers through these (extra
 * fields of internal messages are stripped), and the OpenAPI document, the Postman collection and the
 * SDK's types are generated from them. Changing one is changing the public API.
 */
export const publicSchemas = z.registry<{ id: string; description?: string }>();

const named = <S extends z.ZodType>(id: string, description: string, schema: S): S => {
  publicSchemas.add(schema, { id, description });
  return schema;
};

export const ZErrorResponse = named(
  'Error',
  'Every error: a human-readable description that names the field at fault.',
  z.object({ error: z.string().meta({ example: 'width must be a number from 10 to 60' }) }),
);

export const ZPublicDocumentRecord = named(
  'DocumentRecord',
  'A signed document, as the list shows it.',
  z.object({
    id: z.uuid(),
    fileName: z.string().meta({ description: 'The original file name' }),
    signerName: z.string(),
    signerEmail: z.string(),
    signedAt: ZIsoTimestamp,
    auditId: ZAuditId.meta({
      description: 'Audit ID, also embedded in the PDF',
      example: 'ESG-7KQ2-M4XP-9D3F',
    }),
    fileHash: ZFileHash.meta({ description: 'sha256: of exactly the signed bytes' }),
    ipAddress: z.string().meta({ description: "The signer's IP address" }),
  }),
);

export const ZPublicAuditLogEntry = named(
  'AuditLogEntry',
  "One entry of a document's audit log, hash-chained to the one before it.",
  z.object({
    event: z.string().meta({ example: 'document.signed' }),
    timestamp: ZIsoTimestamp,
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    sequence: z.number().int().nonnegative(),
    prevHash: z.string().regex(/^[0-9a-f]{64}$/),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'SHA-256 over the canonical JSON of this entry and prevHash' }),
  }),
);

export const ZPublicDocumentDetail = named(
  'DocumentDetail',
  'One signed document with its whole audit log.',
  ZPublicDocumentRecord.extend({
    userAgent: z.string(),
    originalHash: ZFileHash.meta({ description: 'sha256: of the original upload' }),
    size: z.number().int().meta({ description: 'Bytes of the signed PDF' }),
    pageCount: z.number().int(),
    createdAt: ZIsoTimestamp,
    auditLog: z.array(ZPublicAuditLogEntry),
  }),
);

export const ZDocumentList = named(
  'DocumentList',
  'A page of signed documents.',
  z.object({
    documents: z.array(ZPublicDocumentRecord),
    total: z.number().int().nonnegative(),
    page: z.number().int().positive(),
    pages: z.number().int().nonnegative(),
    totalExact: z.boolean().meta({
      description:
        'false only when a search or date range matches more than 200 documents: total (and pages) is then an estimate',
    }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Send as cursor for the documents after this page; null on the last page' }),
  }),
);

export const ZPublicTemplate = named(
  'Template',
  'A contract template and the fields it fills.',
  z.object({
    slug: z.string().meta({ example: 'nda' }),
    name: z.string(),
    description: z.string(),
    fields: z.array(
      z.object({
        name: z.string(),
        label: z.string(),
        type: ZTemplateFieldType,
        required: z.boolean(),
      }),
    ),
  }),
);

export const ZTemplateList = named(
  'TemplateList',
  'Every template.',
  z.object({ templates: z.array(ZPublicTemplate) }),
);

export const ZGenerateTemplateRequest = named(
  'GenerateTemplateRequest',
  'Which template to fill, and with what.',
  z.object({
    slug: z
      .string({ error: 'slug is required: one of the template slugs listed by GET /api/v1/templates' })
      .min(1, 'slug is required: one of the template slugs listed by GET /api/v1/templates')
      .max(100, 'slug must be at most 100 characters'),
    fields: z.record(
      z.string(),
      // Values are strings; plain numbers are accepted and sent on as their decimal string.
      z.union([z.string(), z.number().transform((n) => String(n))], {
        error: 'must be a string (dates, amounts and line items are sent as strings too)',
      }),
      { error: 'fields is required: an object that maps field names to string values' },
    ),
  }),
);

export const ZSandboxSignRequest = named(
  'SandboxSignRequest',
  'A document URL for the sandbox. It is never fetched.',
  z.object({
    document_url: z
      .string({ error: 'document_url is required: the http(s) URL of a document' })
      .max(2048, 'document_url must be at most 2048 characters')
      .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), {
        message: 'document_url must be an http or https URL',
      }),
  }),
);

export const ZSandboxSignResult = named(
  'SandboxSignResult',
  'Mock signing data: a pure function of the normalised document_url (the same URL always gives the same bytes).',
  z.object({
    sandbox: z.literal(true),
    status: z.enum(['signed', 'declined']),
    auditId: ZAuditId.meta({
      description: 'Sandbox audit IDs start with SBX',
      example: 'SBX-2M7Q-K8PD-4XWN',
    }),
    documentUrl: z.string().meta({ description: 'The normalised document_url' }),
    fileName: z.string(),
    fileHash: ZFileHash,
    pageCount: z.number().int().positive(),
    signerName: z.string(),
    signerEmail: z.string(),
    signedAt: ZIsoTimestamp.nullable().meta({ description: 'null when declined' }),
    declinedAt: ZIsoTimestamp.nullable().meta({ description: 'null unless declined' }),
    declineReason: z.string().nullable(),
  }),
);

export const ZSignFieldReference = named(
  'SignFieldReference',
  'The field reference of POST /api/v1/sign, generated from the schema the endpoint validates with.',
  z.object({
    endpoint: z.string(),
    contentType: z.string(),
    authentication: z.string(),
    headers: z.record(z.string(), z.string()),
    fields: z.array(
      z.object({
        name: z.string(),
        type: z.string(),
        required: z.string(),
        default: z.unknown().optional(),
        rule: z.string(),
        description: z.string(),
      }),
    ),
    response: z.record(z.string(), z.string()),
    errors: z.record(z.string(), z.string()),
  }),
);

/** `Idempotency-Key`, as a header declaration of the operations that take one. */
const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1-255 visible ASCII characters (a UUID, for example)';
export const ZIdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1, IDEMPOTENCY_KEY_RULE)
    .max(255, IDEMPOTENCY_KEY_RULE)
    .regex(/^[\x21-\x7e]+$/, IDEMPOTENCY_KEY_RULE)
    .optional()
    .meta({
      description:
        'Optional, 1-255 visible ASCII characters (a UUID is typical). A retry of the same request with the same key answers the same result (Idempotent-Replayed: true) instead of doing it again; the same key with a different request is a 409.',
    }),
});

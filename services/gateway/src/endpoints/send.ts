import { randomUUID } from 'node:crypto';
import {
  DEFAULT_SIGNING_EXPIRY_DAYS,
  MAX_SIGNING_EXPIRY_DAYS,
  MAX_SIGNING_MESSAGE_LENGTH,
  MAX_SIGNING_SUBJECT_LENGTH,
  MIN_SIGNING_EXPIRY_DAYS,
  PdfInspect,
  PLAN_LIMITS,
  ServiceError,
  SigningCancel,
  SigningCreate,
  SigningResend,
  SigningStatus,
  ZAuditId,
  ZFileHash,
  ZIsoTimestamp,
  ZSendId,
  type TPosition,
} from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { publicSchemas, ZIdempotencyHeaders } from '../api/public-schemas';
import { fingerprintOf } from '../operations/idempotency';
import { hasVisibleText, positionsJson } from './sign-fields';

/** Where originals of signing requests wait (document-store refuses any other key; no lifecycle rule). */
export const pendingKeyFor = (accountId: string): string => `pending/${accountId}/${randomUUID()}.pdf`;

const named = <S extends z.ZodType>(id: string, description: string, schema: S): S => {
  publicSchemas.add(schema, { id, description });
  return schema;
};

/** Where the signature box goes when the sender gives no positions (the sign endpoint's defaults). */
const DEFAULT_POSITIONS: TPosition[] = [{ x: 50, y: 85, page: 0, width: 25 }];

export const ZSendFields = z.object({
  recipientEmail: z
    .email({ error: 'recipientEmail must be an email address' })
    .max(254, 'recipientEmail must be at most 254 characters')
    .meta({ description: 'Who is asked to sign: the signing link is emailed there' }),
  recipientName: z
    .string({ error: 'recipientName is required' })
    .trim()
    .min(1, 'recipientName is required')
    .max(200, 'recipientName must be at most 200 characters')
    .refine(hasVisibleText, 'recipientName is required (it has no visible characters)')
    .meta({ description: "The recipient's full name (the signing page asks them to confirm it)" }),
  subject: z
    .string()
    .trim()
    .min(1, 'subject must not be empty')
    .max(MAX_SIGNING_SUBJECT_LENGTH, `subject must be at most ${MAX_SIGNING_SUBJECT_LENGTH} characters`)
    .regex(/^[^\r\n]*$/, 'subject must be one line')
    .optional()
    .meta({ description: 'Subject of the email; default "Please sign: <file name>"' }),
  message: z
    .string()
    .max(MAX_SIGNING_MESSAGE_LENGTH, `message must be at most ${MAX_SIGNING_MESSAGE_LENGTH} characters`)
    .optional()
    .meta({
      description:
        'A personal message shown in the email and above the document on the signing page (plain text, never HTML)',
    }),
  positions: positionsJson.optional().meta({
    description:
      'JSON array of {x, y, page, width} as on POST /api/v1/sign: where the signature goes, checked against the document\'s pages at once. Default [{"x":50,"y":85,"page":0,"width":25}]',
  }),
  expiresInDays: z
    .preprocess(
      (v) => (typeof v === 'string' ? Number(v.trim()) : v),
      z
        .number({
          error: `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        })
        .int(`expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`)
        .min(
          MIN_SIGNING_EXPIRY_DAYS,
          `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        )
        .max(
          MAX_SIGNING_EXPIRY_DAYS,
          `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        ),
    )
    .default(DEFAULT_SIGNING_EXPIRY_DAYS)
    .meta({
      description: `Days until the link expires (${MIN_SIGNING_EXPIRY_DAYS}-${MAX_SIGNING_EXPIRY_DAYS}, default ${DEFAULT_SIGNING_EXPIRY_DAYS})`,
    }),
});

export const ZSendResult = named(
  'SendResult',
  'A signing request: the recipient was (or is about to be) emailed a signing link.',
  z.object({
    sendId: ZSendId.meta({ example: 'send_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
    auditId: ZAuditId.meta({
      description: 'The audit ID the signed document will carry; GET /api/v1/status takes it',
      example: 'ESG-7KQ2-M4XP-9D3F',
    }),
    recipientEmail: z.string(),
    sentAt: ZIsoTimestamp,
    status: z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']).meta({
      description: 'pending for a new request (a replay answers the current status)',
    }),
    expiresAt: ZIsoTimestamp,
  }),
);

export const ZPublicSigningStatus = named(
  'SigningStatus',
  'Where a signing request stands: exactly these fields per status.',
  z.discriminatedUnion('status', [
    z.object({
      auditId: ZAuditId,
      status: z.literal('pending'),
      signerName: z.string(),
      signerEmail: z.string(),
      viewedAt: ZIsoTimestamp.nullable().meta({
        description: "null until the recipient's browser has shown the document",
      }),
    }),
    z.object({
      auditId: ZAuditId,
      status: z.literal('signed'),
      signerName: z.string(),
      signerEmail: z.string(),
      signedAt: ZIsoTimestamp,
      fileHash: ZFileHash.meta({ description: 'sha256: of the signed PDF (as in GET /api/v1/documents)' }),
    }),
    z.object({
      auditId: ZAuditId,
      status: z.literal('declined'),
      declinedAt: ZIsoTimestamp,
      declineReason: z.string(),
    }),
    z.object({ auditId: ZAuditId, status: z.literal('expired'), expiredAt: ZIsoTimestamp }),
    z.object({ auditId: ZAuditId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
  ]),
);

export const ZCancelResult = named(
  'SendCanceled',
  'The request is canceled: its links no longer work and the recipient is told.',
  z.object({ sendId: ZSendId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
);

export const ZResendResult = named(
  'SendResent',
  'A new email with a new link is on its way; earlier links no longer work. The expiry is unchanged.',
  z.object({ sendId: ZSendId, status: z.literal('pending'), expiresAt: ZIsoTimestamp }),
);

/** `positions[i].page` beyond the document's pages, said the way the client wrote it. */
const checkPages = (positions: readonly TPosition[], pageCount: number, usedPositions: boolean) => {
  positions.forEach((position, i) => {
    if (position.page < pageCount) return;
    const field = usedPositions ? `positions[${i}].page` : 'page';
    const pages = `${pageCount} page${pageCount === 1 ? '' : 's'}`;
    throw new ServiceError(
      'invalid_argument',
      `${field}: page ${position.page} does not exist (the document has ${pages})`,
      usedPositions ? `positions[${i}].page` : 'positions',
    );
  });
};

const SEND_EXAMPLE = {
  recipientEmail: 'ada@example.com',
  recipientName: 'Ada Lovelace',
  subject: 'Please sign: contract.pdf',
  message: 'Hi Ada, here is the contract we discussed.',
  positions: [{ x: 60, y: 80, page: 0, width: 30 }],
};

export const sendForSigningOperation = defineOperation({
  id: 'sendForSigning',
  method: 'post',
  path: '/api/v1/send',
  tag: 'Send for signing',
  summary: 'Send a PDF to be signed by email',
  description:
    "Upload a PDF (at most 10 MB; 413 above) and name the recipient: they get an email with a secure, single-use link to a page where they read the whole document and sign it (draw or type) or decline with a reason. Positions are checked against the document's pages at once. Answers 201 with the sendId and the auditId the signed document will carry; follow it with GET /api/v1/status. The signed document then appears in GET /api/v1/documents like one signed through POST /api/v1/sign, and is emailed to you and the recipient. With Idempotency-Key, a retry answers the same request and sends no second email.",
  auth: 'apiKey',
  idempotent: true,
  request: {
    headers: ZIdempotencyHeaders,
    multipart: {
      fields: ZSendFields,
      file: {
        name: 'file',
        description: 'The PDF to sign',
        accept: ['pdf'],
        maxBytes: (config, principal) =>
          Math.min(
            config.SEND_MAX_FILE_BYTES,
            principal ? PLAN_LIMITS[principal.plan].maxFileBytes : config.SEND_MAX_FILE_BYTES,
          ),
        hash: (headers) => headers['Idempotency-Key'] !== undefined,
      },
    },
    example: SEND_EXAMPLE,
  },
  responses: {
    201: {
      description: 'The request exists and the email is on its way',
      json: ZSendResult,
      headers: {
        'Idempotent-Replayed': {
          description: 'true when an earlier request with the same Idempotency-Key made this one',
          schema: z.literal('true'),
          required: false,
        },
      },
    },
  },
  errors: ['invalid_argument', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { caller: principal, file, fields } = input;
    if (!principal || !file) throw new Error('sendForSigning needs a principal and a file');
    const positions = fields.positions ?? DEFAULT_POSITIONS;
    const { pageCount } = await deps.bus.request(
      PdfInspect,
      { uploadKey: file.key },
      { timeoutMs: deps.config.SIGN_TIMEOUT_MS },
    );
    checkPages(positions, pageCount, fields.positions !== undefined);

    // The original waits under pending/ (the uploads/ prefix expires within a day) until the request ends.
    const pendingKey = pendingKeyFor(principal.accountId);
    await deps.blob.put(pendingKey, await deps.blob.get(file.key), { contentType: 'application/pdf' });
    await deps.blob.remove(file.key).catch(() => undefined);
    const idempotencyKey = input.headers['Idempotency-Key'];
    let created;
    try {
      created = await deps.bus.request(SigningCreate, {
        accountId: principal.accountId,
        senderEmail: principal.email,
        recipientEmail: fields.recipientEmail,
        recipientName: fields.recipientName,
        subject: fields.subject,
        message: fields.message ?? null,
        fileName: file.fileName,
        objectKey: pendingKey,
        positions,
        pageCount,
        expiresInDays: fields.expiresInDays,
        idempotency: idempotencyKey
          ? { key: idempotencyKey, requestHash: fingerprintOf(file, input.rawFields) }
          : undefined,
      });
    } catch (err) {
      await deps.blob.remove(pendingKey).catch(() => undefined);
      throw err;
    }
    // A replay: the first request's original is the one in use.
    if (created.replayed) await deps.blob.remove(pendingKey).catch(() => undefined);
    deps.logger.info(created.replayed ? 'signing request replayed' : 'signing request sent', {
      sendId: created.sendId,
      auditId: created.auditId,
      pages: pageCount,
      bytes: file.size,
    });
    const { replayed, ...result } = created;
    return {
      status: 201,
      json: result,
      headers: { 'Cache-Control': 'no-store', ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
    };
  },
});

const ID_ERROR = 'auditId must be an audit ID (ESG-XXXX-XXXX-XXXX) or a send ID (send_…)';

export const signingStatusOperation = defineOperation({
  id: 'getSigningStatus',
  method: 'get',
  path: '/api/v1/status',
  tag: 'Send for signing',
  summary: 'Status of a request sent for signing',
  description:
    "Where a request sent with POST /api/v1/send stands. `auditId` takes the audit ID that POST /api/v1/send answered (its sendId is accepted too). The fields depend on the status: pending (auditId, status, signerName, signerEmail, viewedAt: null until the recipient's browser has shown the document), signed (auditId, status, signerName, signerEmail, signedAt, fileHash), declined (auditId, status, declinedAt, declineReason), expired (auditId, status, expiredAt) and canceled (auditId, status, canceledAt). An unknown ID or another account's answers 404.",
  auth: 'apiKey',
  request: {
    query: z.object({
      auditId: z
        .string({ error: 'auditId is required' })
        .min(1, 'auditId is required')
        .max(100, ID_ERROR)
        .meta({
          description: 'The audit ID from POST /api/v1/send (its sendId is accepted too)',
          example: 'ESG-7KQ2-M4XP-9D3F',
        }),
    }),
  },
  responses: { 200: { description: 'The status', json: ZPublicSigningStatus } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle({ query, caller: principal }, deps) {
    if (!principal) throw new Error('getSigningStatus needs a principal');
    const id = query.auditId;
    if (!ZAuditId.safeParse(id).success && !ZSendId.safeParse(id).success) {
      throw new ServiceError('not_found', `No signing request ${id.slice(0, 40)}`);
    }
    const status = await deps.bus.request(SigningStatus, { accountId: principal.accountId, id });
    return { status: 200, json: status, headers: { 'Cache-Control': 'no-store' } };
  },
});

const ZSendIdParams = z.object({
  sendId: z
    .string()
    .meta({ description: 'The sendId from POST /api/v1/send', example: 'send_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
});

const knownSendId = (sendId: string): string => {
  if (!ZSendId.safeParse(sendId).success) {
    throw new ServiceError('not_found', `No signing request ${sendId.slice(0, 40)}`);
  }
  return sendId;
};

export const cancelSendOperation = defineOperation({
  id: 'cancelSend',
  method: 'post',
  path: '/api/v1/send/{sendId}/cancel',
  tag: 'Send for signing',
  summary: 'Cancel a pending request',
  description:
    "The signing links stop working at once and the recipient is told by email. Only a pending request can be canceled (409 otherwise); an unknown sendId or another account's answers 404.",
  auth: 'apiKey',
  request: { params: ZSendIdParams },
  responses: { 200: { description: 'Canceled', json: ZCancelResult } },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, caller: principal }, deps) {
    if (!principal) throw new Error('cancelSend needs a principal');
    const canceled = await deps.bus.request(SigningCancel, {
      accountId: principal.accountId,
      sendId: knownSendId(params.sendId),
    });
    deps.logger.info('signing request canceled', { sendId: canceled.sendId });
    return { status: 200, json: canceled };
  },
});

export const resendSendOperation = defineOperation({
  id: 'resendSend',
  method: 'post',
  path: '/api/v1/send/{sendId}/resend',
  tag: 'Send for signing',
  summary: 'Email the signing link again',
  description:
    "Sends the recipient a new email with a new link; every earlier link stops working. The expiry and the reminder schedule stay as they were. Only a pending request can be resent (409 otherwise); an unknown sendId or another account's answers 404.",
  auth: 'apiKey',
  request: { params: ZSendIdParams },
  responses: { 200: { description: 'Resent', json: ZResendResult } },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, caller: principal }, deps) {
    if (!principal) throw new Error('resendSend needs a principal');
    const resent = await deps.bus.request(SigningResend, {
      accountId: principal.accountId,
      sendId: knownSendId(params.sendId),
    });
    deps.logger.info('signing request resent', { sendId: resent.sendId });
    return { status: 200, json: resent };
  },
});

import { randomUUID } from 'node:crypto';
import { SCRATCH_PREFIX } from '@esign/blob';
import { ServiceError, signedFileNameFor } from '@esign/contracts';
import { z } from 'zod';
import { defineAccountOperation, type AccountMount } from '../api/account-operation';
import { ZIdempotencyHeaders } from '../api/public-schemas';
import { attachment } from '../http/content-disposition';
import { createEnvelope } from '../operations/create-envelope';
import { fingerprintOf } from '../operations/idempotency';
import {
  ENVELOPE_EXAMPLE,
  ZEnvelopeFields,
  ZEnvelopeIdParams,
  ZEnvelopeList,
  ZEnvelopeListQuery,
  ZEnvelopeRecipientParams,
  ZPublicEnvelope,
  ZReplaceRecipientRequest,
  isEnvelopeId,
  isRecipientId,
} from './envelopes.schemas';
import { planLimitedFile } from './sign-fields';

const TAG = 'Envelopes';

/**
 * The envelope operations at `/api/v1/envelopes…` for API keys and at `/api/envelopes…` for the
 * dashboard session (cookie; changes need an Origin of this site and X-CSRF-Token; never cached).
 */
const mounts = (
  subpath: string,
  apiKeyId: string,
  sessionId: string,
  dashboard: Pick<AccountMount, 'summary'> = {},
) => ({
  apiKey: { id: apiKeyId, path: `/api/v1/envelopes${subpath}`, tag: TAG },
  session: {
    id: sessionId,
    path: `/api/envelopes${subpath}`,
    tag: 'Dashboard',
    noStore: true as const,
    ...dashboard,
    description: (text: string) =>
      `${text} The dashboard's form of the /api/v1/envelopes operation of the same name: the session cookie instead of an API key (changes need an Origin of this site and X-CSRF-Token), open to every plan.`,
  },
});

const knownEnvelopeId = (id: string): string => {
  if (!isEnvelopeId(id)) throw new ServiceError('not_found', `No envelope ${id.slice(0, 40)}`);
  return id;
};

const knownRecipientId = (id: string): string => {
  if (!isRecipientId(id)) throw new ServiceError('not_found', `No recipient ${id.slice(0, 40)}`);
  return id;
};

export const createEnvelopeOperation = defineAccountOperation({
  mounts: mounts('', 'createEnvelope', 'createDashboardEnvelope', {
    summary: 'Send a PDF to several recipients from the dashboard',
  }),
  method: 'post',
  summary: 'Send a PDF to several recipients, in order',
  description:
    "Upload a PDF (at most 10 MB; 413 above) and name its recipients: signers (each signs with a digital signature of their own and fills their fields), approvers (approve or decline) and people in copy (receive the completed document). Recipients with the same `order` act in parallel; groups act in ascending order, and the server enforces it: a recipient's link is created and emailed only when their group's turn comes. Everything is checked against the document at once (pages, boxes inside the page, at most 50 recipients and 200 fields, distinct emails per group, a signature field per signer); a 400 names the recipient and field at fault. Answers 201 with the envelope; follow it with GET /api/v1/envelopes/{envelopeId}. With Idempotency-Key, a retry answers the same envelope and sends no second email.",
  auth: 'account',
  idempotency: 'domain',
  request: {
    headers: ZIdempotencyHeaders,
    multipart: {
      fields: ZEnvelopeFields,
      file: planLimitedFile({
        description: 'The PDF to sign',
        accept: ['pdf'],
        maxBytes: (config) => config.SEND_MAX_FILE_BYTES,
      }),
    },
    example: ENVELOPE_EXAMPLE,
  },
  responses: {
    201: {
      description: 'The envelope exists and the first group is being emailed',
      json: ZPublicEnvelope,
    },
  },
  errors: ['invalid_argument', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { caller, file, fields } = input;
    const idempotencyKey = input.headers['Idempotency-Key'];
    const { replayed, ...envelope } = await createEnvelope(deps.envelopes, {
      accountId: caller.accountId,
      senderEmail: caller.email,
      upload: file,
      recipients: fields.recipients,
      subject: fields.subject,
      message: fields.message,
      expiresInDays: fields.expiresInDays,
      reminders: fields.reminders,
      idempotency: idempotencyKey
        ? { key: idempotencyKey, requestHash: fingerprintOf(file, input.rawFields) }
        : undefined,
    });
    return {
      status: 201,
      json: envelope,
      headers: { 'Cache-Control': 'no-store', ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
    };
  },
});

export const getEnvelopeOperation = defineAccountOperation({
  mounts: mounts('/{envelopeId}', 'getEnvelope', 'getDashboardEnvelope', {
    summary: 'One envelope of the signed-in account',
  }),
  method: 'get',
  summary: 'An envelope and where each recipient stands',
  description:
    "The envelope's status (pending, completed, declined, canceled, expired), each recipient's status (waiting, notified, viewed, signed, approved, declined) with its times, and once completed the fileHash of the final document (which GET /api/v1/documents/{auditId} lists under the envelope's auditId). An unknown envelope or another account's answers 404.",
  auth: 'account',
  request: { params: ZEnvelopeIdParams },
  responses: { 200: { description: 'The envelope', json: ZPublicEnvelope } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    const envelope = await deps.envelopes.get(caller.accountId, knownEnvelopeId(params.envelopeId));
    return { status: 200, json: envelope, headers: { 'Cache-Control': 'no-store' } };
  },
});

export const listEnvelopesOperation = defineAccountOperation({
  mounts: mounts('', 'listEnvelopes', 'listDashboardEnvelopes', {
    summary: "The signed-in account's envelopes",
  }),
  method: 'get',
  summary: "The account's envelopes",
  description:
    'Newest first, optionally only those in one status; pass nextCursor as cursor for the next page.',
  auth: 'account',
  request: { query: ZEnvelopeListQuery },
  responses: { 200: { description: 'A page of envelopes', json: ZEnvelopeList } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query, caller }, deps) {
    const page = await deps.envelopes.list({
      accountId: caller.accountId,
      status: query.status,
      limit: query.limit,
      cursor: query.cursor,
    });
    return { status: 200, json: page, headers: { 'Cache-Control': 'no-store' } };
  },
});

export const cancelEnvelopeOperation = defineAccountOperation({
  mounts: mounts('/{envelopeId}/cancel', 'cancelEnvelope', 'cancelDashboardEnvelope', {
    summary: 'Cancel a pending envelope from the dashboard',
  }),
  method: 'post',
  summary: 'Cancel a pending envelope',
  description:
    "Every link stops working at once (410) and the recipients whose turn had come are told by email. Only a pending envelope can be canceled (409 otherwise); an unknown envelope or another account's answers 404.",
  auth: 'account',
  idempotency: 'replay',
  request: { params: ZEnvelopeIdParams },
  responses: { 200: { description: 'Canceled', json: ZPublicEnvelope } },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    const { replayed: _replayed, ...envelope } = await deps.envelopes.cancel(
      caller.accountId,
      knownEnvelopeId(params.envelopeId),
    );
    deps.logger.info('envelope canceled', { envelopeId: envelope.envelopeId });
    return { status: 200, json: envelope };
  },
});

export const resendEnvelopeRecipientOperation = defineAccountOperation({
  mounts: mounts(
    '/{envelopeId}/recipients/{recipientId}/resend',
    'resendEnvelopeRecipient',
    'resendDashboardEnvelopeRecipient',
    { summary: "Email a recipient's link again, from the dashboard" },
  ),
  method: 'post',
  summary: "Email a recipient's link again",
  description:
    "Sends the recipient a new email with a new link; their earlier links stop working (404). Only for a signer or approver whose group's turn has come, who has not acted, and who is emailed (not embedded), while the envelope is pending: 409 otherwise. An unknown envelope or recipient, or another account's, answers 404. Answers the envelope.",
  auth: 'account',
  idempotency: 'replay',
  request: { params: ZEnvelopeRecipientParams },
  responses: { 200: { description: 'The email is on its way', json: ZPublicEnvelope } },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    const { replayed: _replayed, ...envelope } = await deps.envelopes.resendRecipient(
      caller.accountId,
      knownEnvelopeId(params.envelopeId),
      knownRecipientId(params.recipientId),
    );
    deps.logger.info('envelope recipient resent', {
      envelopeId: envelope.envelopeId,
      recipientId: params.recipientId,
    });
    return { status: 200, json: envelope };
  },
});

export const replaceEnvelopeRecipientOperation = defineAccountOperation({
  mounts: mounts(
    '/{envelopeId}/recipients/{recipientId}/replace',
    'replaceEnvelopeRecipient',
    'replaceDashboardEnvelopeRecipient',
    { summary: 'Put another person in the place of a recipient, from the dashboard' },
  ),
  method: 'post',
  summary: 'Put another person in the place of a recipient who has not acted',
  description:
    "The new person keeps the recipient's ID, role, group and fields. The replaced person's links stop working at once (404). If the recipient's turn has come, the new person is emailed a link at once; otherwise they are asked when their group's turn comes. The envelope keeps both: `replaces` on the recipient, the audit log and the certificate of completion name the replaced person. 409 when the recipient has already signed, approved or declined, or the envelope is no longer pending; 400 when another recipient of the same group has that email. An unknown envelope or recipient, or another account's, answers 404.",
  auth: 'account',
  idempotency: 'replay',
  request: {
    params: ZEnvelopeRecipientParams,
    json: ZReplaceRecipientRequest,
    example: { name: 'Grace Hopper', email: 'grace@example.com' },
  },
  responses: { 200: { description: 'Replaced', json: ZPublicEnvelope } },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, body, caller }, deps) {
    const { replayed: _replayed, ...envelope } = await deps.envelopes.replaceRecipient({
      accountId: caller.accountId,
      envelopeId: knownEnvelopeId(params.envelopeId),
      recipientId: knownRecipientId(params.recipientId),
      name: body.name,
      email: body.email,
    });
    deps.logger.info('envelope recipient replaced', {
      envelopeId: envelope.envelopeId,
      recipientId: params.recipientId,
    });
    return { status: 200, json: envelope };
  },
});

export const getEnvelopeDocumentOperation = defineAccountOperation({
  mounts: mounts('/{envelopeId}/document', 'getEnvelopeDocument', 'getDashboardEnvelopeDocument', {
    summary: "An envelope's document as it stands, for the dashboard",
  }),
  method: 'get',
  summary: 'The document as it stands',
  description:
    "Once completed, the final document (every signer's signature, the certificate of completion and the service's seal; X-Complete: true). Before that, the signed revisions so far as a copy with every page marked as not yet complete (X-Complete: false): it is never presented as the finished document.",
  auth: 'account',
  request: { params: ZEnvelopeIdParams },
  responses: {
    200: {
      description: 'The PDF',
      binary: 'application/pdf',
      headers: {
        'X-Complete': {
          description: 'true for the completed document, false for a marked copy',
          schema: z.enum(['true', 'false']),
        },
        'Content-Disposition': {
          description: 'attachment; `<name>-signed.pdf` when complete, `<name>-incomplete.pdf` before',
          schema: z.string(),
        },
      },
    },
  },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    const ports = deps.envelopes;
    const where = await ports.document(caller.accountId, knownEnvelopeId(params.envelopeId));
    if (where.complete) {
      const stat = await ports.statObject(where.objectKey);
      if (!stat) throw new ServiceError('unavailable', 'The completed document is not readable right now.');
      return {
        status: 200,
        stream: await ports.openObject(where.objectKey),
        contentType: 'application/pdf',
        size: stat.size,
        headers: {
          'Content-Disposition': attachment(signedFileNameFor(where.fileName)),
          'X-Complete': 'true',
          'Cache-Control': 'no-store',
        },
      };
    }
    const note = `${where.signersDone} of ${where.signersTotal} signer${where.signersTotal === 1 ? ' has' : 's have'} signed (envelope ${where.status})`;
    // A copy marked on every page, among scratch copies (expired by the bucket when left); removed once sent.
    const copyKey = `${SCRATCH_PREFIX}${caller.accountId}/${randomUUID()}.pdf`;
    const marked = await ports.markIncomplete(where.objectKey, copyKey, `NOT COMPLETE: ${note}`);
    const stream = await ports.openObject(marked.objectKey);
    stream.once('close', () => void ports.removeObject(marked.objectKey).catch(() => undefined));
    const base = where.fileName.replace(/\.pdf$/i, '') || 'document';
    return {
      status: 200,
      stream,
      contentType: 'application/pdf',
      size: marked.size,
      headers: {
        'Content-Disposition': attachment(`${base}-incomplete.pdf`),
        'X-Complete': 'false',
        'Cache-Control': 'no-store',
      },
    };
  },
});

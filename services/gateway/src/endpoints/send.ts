import { ServiceError, ZAuditId, ZSendId } from '@esign/contracts';
import type { z } from 'zod';
import { defineOperation } from '../api/operation';
import { ZIdempotencyHeaders } from '../api/public-schemas';
import { fingerprintOf } from '../operations/idempotency';
import { sendForSigning } from '../operations/send-for-signing';
import type { SendingPorts } from '../operations/sending-ports';
import {
  ZCancelResult,
  ZPublicSigningStatus,
  ZResendResult,
  ZSendFields,
  ZSendIdParams,
  ZSendResult,
  ZSigningStatusQuery,
  SEND_EXAMPLE,
} from './send.schemas';
import { planLimitedFile } from './sign-fields';

export const sendForSigningOperation = defineOperation({
  id: 'sendForSigning',
  method: 'post',
  path: '/api/v1/send',
  tag: 'Send for signing',
  summary: 'Send a PDF to be signed by email',
  description:
    "Upload a PDF (at most 10 MB; 413 above) and name the recipient: they get an email with a secure, single-use link to a page where they read the whole document and sign it (draw or type) or decline with a reason. Positions are checked against the document's pages at once. Answers 201 with the sendId and the auditId the signed document will carry; follow it with GET /api/v1/status. The signed document then appears in GET /api/v1/documents like one signed through POST /api/v1/sign, and is emailed to you and the recipient. With Idempotency-Key, a retry answers the same request and sends no second email.",
  auth: 'apiKey',
  idempotency: 'domain',
  request: {
    headers: ZIdempotencyHeaders,
    multipart: {
      fields: ZSendFields,
      file: planLimitedFile({
        description: 'The PDF to sign',
        accept: ['pdf'],
        maxBytes: (config) => config.SEND_MAX_FILE_BYTES,
      }),
    },
    example: SEND_EXAMPLE,
  },
  responses: {
    201: {
      description: 'The request exists and the email is on its way',
      json: ZSendResult,
    },
  },
  errors: ['invalid_argument', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { caller, file, fields } = input;
    const idempotencyKey = input.headers['Idempotency-Key'];
    const { replayed, ...json } = await sendForSigning(deps.sending, {
      accountId: caller.accountId,
      senderEmail: caller.email,
      upload: file,
      recipient: { email: fields.recipientEmail, name: fields.recipientName },
      subject: fields.subject,
      message: fields.message,
      positions: fields.positions,
      expiresInDays: fields.expiresInDays,
      idempotency: idempotencyKey
        ? { key: idempotencyKey, requestHash: fingerprintOf(file, input.rawFields) }
        : undefined,
    });
    return {
      status: 201,
      json,
      headers: { 'Cache-Control': 'no-store', ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
    };
  },
});

export const signingStatusOperation = defineOperation({
  id: 'getSigningStatus',
  method: 'get',
  path: '/api/v1/status',
  tag: 'Send for signing',
  summary: 'Status of a request sent for signing',
  description:
    "Where a request sent with POST /api/v1/send stands. `auditId` takes the audit ID that POST /api/v1/send answered (its sendId is accepted too). The fields depend on the status: pending (auditId, status, signerName, signerEmail, viewedAt: null until the recipient's browser has shown the document), signed (auditId, status, signerName, signerEmail, signedAt, fileHash), declined (auditId, status, declinedAt, declineReason), expired (auditId, status, expiredAt) and canceled (auditId, status, canceledAt). An unknown ID or another account's answers 404.",
  auth: 'apiKey',
  request: { query: ZSigningStatusQuery },
  responses: { 200: { description: 'The status', json: ZPublicSigningStatus } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle({ query, caller }, deps) {
    const id = query.auditId;
    if (!ZAuditId.safeParse(id).success && !ZSendId.safeParse(id).success) {
      throw new ServiceError('not_found', `No signing request ${id.slice(0, 40)}`);
    }
    const status = await deps.sending.signingStatus(caller.accountId, id);
    return { status: 200, json: status, headers: { 'Cache-Control': 'no-store' } };
  },
});

const knownSendId = (sendId: string): string => {
  if (!ZSendId.safeParse(sendId).success) {
    throw new ServiceError('not_found', `No signing request ${sendId.slice(0, 40)}`);
  }
  return sendId;
};

/** Cancel and resend: one action on one of the account's pending requests, named by its sendId. */
const pendingRequestAction = <R extends z.ZodType<{ sendId: string }>>(action: {
  readonly id: string;
  readonly verb: 'cancel' | 'resend';
  readonly summary: string;
  readonly description: string;
  readonly answer: { readonly description: string; readonly json: R };
  readonly act: (ports: SendingPorts, accountId: string, sendId: string) => Promise<z.infer<R>>;
  /** What the log says once it is done. */
  readonly done: string;
}) =>
  defineOperation({
    id: action.id,
    method: 'post',
    path: `/api/v1/send/{sendId}/${action.verb}`,
    tag: 'Send for signing',
    summary: action.summary,
    description: action.description,
    auth: 'apiKey',
    idempotency: 'replay',
    request: { params: ZSendIdParams },
    responses: { 200: action.answer },
    errors: ['not_found', 'conflict', 'unavailable', 'internal'],
    async handle({ params, caller }, deps) {
      const result = await action.act(deps.sending, caller.accountId, knownSendId(params.sendId));
      deps.logger.info(action.done, { sendId: result.sendId });
      return { status: 200, json: result };
    },
  });

export const cancelSendOperation = pendingRequestAction({
  id: 'cancelSend',
  verb: 'cancel',
  summary: 'Cancel a pending request',
  description:
    "The signing links stop working at once and the recipient is told by email. Only a pending request can be canceled (409 otherwise); an unknown sendId or another account's answers 404.",
  answer: { description: 'Canceled', json: ZCancelResult },
  act: (ports, accountId, sendId) => ports.cancelSigningRequest(accountId, sendId),
  done: 'signing request canceled',
});

export const resendSendOperation = pendingRequestAction({
  id: 'resendSend',
  verb: 'resend',
  summary: 'Email the signing link again',
  description:
    "Sends the recipient a new email with a new link; every earlier link stops working. The expiry and the reminder schedule stay as they were. Only a pending request can be resent (409 otherwise); an unknown sendId or another account's answers 404.",
  answer: { description: 'Resent', json: ZResendResult },
  act: (ports, accountId, sendId) => ports.resendSigningRequest(accountId, sendId),
  done: 'signing request resent',
});

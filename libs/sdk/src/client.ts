import { randomUUID } from 'node:crypto';
import { EsignApiError, EsignConnectionError, errorMessageOf } from './errors.js';
import { toFilePart, type FileInput } from './files.js';
import { OPERATIONS, type OperationId } from './generated/operations.js';
import { abortReason, parseRetryAfter, retryDelayMs, sleep } from './retry.js';
import type {
  DocumentDetail,
  DocumentList,
  EmbedOrigins,
  Envelope,
  EnvelopeFields,
  EnvelopeList,
  ListEnvelopesQuery,
  ReplaceRecipientRequest,
  GenerateTemplateRequest,
  JsonBodyOf,
  JsonResultOf,
  ListDocumentsQuery,
  PathParamsOf,
  QueryOf,
  SandboxSignRequest,
  SandboxSignResult,
  SendCanceled,
  SendFields,
  SendResent,
  SendResult,
  SignFieldReference,
  SigningStatus,
  SignFields,
  SignPosition,
  SigningUrl,
  SuccessHeaderOf,
  TemplateList,
  CreateWebhookRequest,
  ListWebhookDeliveriesQuery,
  NewWebhook,
  RotatedWebhookSecret,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  IssuedDocumentCheck,
  VerificationReport,
} from './types.js';

/** This SDK's version (sent in `User-Agent`). */
export const SDK_VERSION = '0.1.0';

/** A Retry-After longer than this is not waited for: the error goes to the caller, who can schedule. */
export const MAX_RETRY_AFTER_SECONDS = 60;

export interface EsignClientOptions {
  /** A live API key (`svc_live_…`) or the deployment's public sandbox token (`svc_sandbox_…`). */
  apiKey: string;
  /** Where the API is served, e.g. `https://esign.example.com` or `http://localhost:8080`. */
  baseUrl: string;
  /** The fetch to use; default the global fetch of Node 18+. */
  fetch?: typeof fetch;
  /** Retries after a 429, a 503, or a network failure of a request safe to repeat. Default 2. */
  maxRetries?: number;
  /** Time one attempt may take, response body included, in milliseconds. Default 120000. */
  timeoutMs?: number;
  /** Backoff before the first retry in milliseconds (doubling, jittered, at most 8 s). Default 500. */
  retryBaseDelayMs?: number;
}

/** Per-call options of every method. */
export interface RequestOptions {
  /**
   * `Idempotency-Key` of an operation that takes one (every POST that creates or sends something:
   * signDocument, sendForSigning, createEnvelope, createWebhook, …). Default: a new UUID per call. The
   * same key is sent on every retry of the call; give your own to retry across processes or restarts.
   */
  idempotencyKey?: string;
  /** Aborts the call, retries and waits included. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

/** What `request()` sends, typed from the operation's declaration in the API document. */
export interface RequestInput<K extends OperationId> {
  /** Values of the path's `{placeholders}`. */
  params?: PathParamsOf<K>;
  query?: QueryOf<K>;
  /** A JSON body. */
  json?: JsonBodyOf<K>;
  /** A multipart/form-data body. */
  form?: FormData;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** A successful answer, its body read in full. */
export interface ApiResponse<K extends OperationId> {
  readonly operationId: K;
  readonly status: number;
  readonly headers: Headers;
  readonly body: Uint8Array;
  /** The `Idempotency-Key` sent (every attempt sent the same one), for operations that take one. */
  readonly idempotencyKey: string | undefined;
}

/** `signDocument`'s input: the form fields of `POST /api/v1/sign` and the file. */
export type SignDocumentInput = SignFields & {
  /** The document: a path, a Buffer/Uint8Array/ArrayBuffer, a Blob or a readable stream (read into memory). */
  file: FileInput;
  /** The file name sent (default: the path's or stream's base name, else `document.pdf|png|jpg`). */
  fileName?: string;
};

/** A signed PDF and what the answer's headers say about it. */
export type SendForSigningInput = SendFields & {
  /** The PDF: a path, a Buffer/Uint8Array/ArrayBuffer, a Blob or a readable stream (read into memory). */
  file: FileInput;
  /** The file name sent (default: the path's or stream's base name, else `document.pdf`). */
  fileName?: string;
};

/** `createEnvelope`'s input: the form fields of `POST /api/v1/envelopes` and the PDF. */
export type CreateEnvelopeInput = EnvelopeFields & {
  /** The PDF: a path, a Buffer/Uint8Array/ArrayBuffer, a Blob or a readable stream (read into memory). */
  file: FileInput;
  /** The file name sent (default: the path's or stream's base name, else `document.pdf`). */
  fileName?: string;
};

/** An envelope's document as it stands (`GET /api/v1/envelopes/{envelopeId}/document`). */
export interface EnvelopeDocument {
  /** The PDF, exactly as returned. */
  readonly bytes: Uint8Array;
  /** True for the completed document; false for a copy marked as not yet complete (`X-Complete`). */
  readonly complete: boolean;
  /** The download name (`Content-Disposition`). */
  readonly fileName: string;
}

export interface SignedDocument {
  /** The signed PDF, exactly as returned. */
  readonly bytes: Uint8Array;
  /** The audit ID (`X-Audit-Id`), also embedded in the PDF. */
  readonly auditId: string;
  /** When it was signed, ISO 8601 UTC (`X-Signed-At`). */
  readonly signedAt: string;
  /** `sha256:` of exactly `bytes` (`X-File-Hash`). */
  readonly fileHash: string;
  /** The download name, `<name>-signed.pdf` (`Content-Disposition`). */
  readonly fileName: string;
  /** True when an earlier request with the same Idempotency-Key produced this document. */
  readonly replayed: boolean;
  /** The Idempotency-Key sent: retry later with it to get this same document instead of a new one. */
  readonly idempotencyKey: string;
}

/** A stored signed PDF, downloaded (`GET /api/v1/documents/{auditId}/pdf`). */
export interface DownloadedDocument {
  /** The signed PDF, exactly as stored. */
  readonly bytes: Uint8Array;
  /** The audit ID (`X-Audit-Id`), also embedded in the PDF. */
  readonly auditId: string;
  /** When it was signed, ISO 8601 UTC (`X-Signed-At`). */
  readonly signedAt: string;
  /** `sha256:` of exactly `bytes` (`X-File-Hash`): the document's `fileHash`. */
  readonly fileHash: string;
  /** The download name, `<name>-signed.pdf` (`Content-Disposition`). */
  readonly fileName: string;
}

/** A filled template PDF and where to sign it. */
export interface GeneratedTemplate {
  readonly bytes: Uint8Array;
  readonly fileName: string;
  /** The template filled (`X-Template-Slug`). */
  readonly slug: string;
  /** Where each party signs, ready to pass to `signDocument` as `positions`. */
  readonly positions: SignPosition[];
  readonly pageCount: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY_BASE_DELAY_MS = 500;

/** Marks an attempt aborted by its own timeout (not by the caller). */
class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

/** The file name of a Content-Disposition: `filename*` (RFC 5987, UTF-8) first, then `filename`. */
export const fileNameOfDisposition = (disposition: string | null): string | undefined => {
  if (!disposition) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed escape: fall back to the plain name.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(disposition);
  const name = plain?.[1] ?? plain?.[2];
  return name?.replace(/\\(.)/g, '$1').trim();
};

/** The Accept header of an operation: its success media type, and JSON for its errors. */
const acceptOf = (successType: string | null): string =>
  successType === null || successType === 'application/json'
    ? 'application/json'
    : `${successType}, application/json`;

/** A path or query value as text: strings, numbers and booleans only. */
const paramText = (name: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`${name} must be a string, a number or a boolean`);
};

const describe = (err: unknown): string => {
  if (!(err instanceof Error)) return String(err);
  // fetch's "fetch failed" hides the reason (ECONNREFUSED, a reset) in its cause.
  const cause: unknown = err.cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
};

/**
 * The client of the esign API. One method per operation; each returns the typed result or throws an
 * {@link EsignApiError} (the server answered with an error) or an {@link EsignConnectionError} (no answer).
 *
 * ```ts
 * const esign = new EsignClient({ apiKey: process.env.ESIGN_API_KEY!, baseUrl: 'http://localhost:8080' });
 * const signed = await esign.signDocument({ file: 'contract.pdf', signerName: 'Ada', signerEmail: 'ada@example.com',
 *   mode: 'type', typedName: 'Ada' });
 * ```
 */
export class EsignClient {
  private readonly apiKey: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryBaseDelayMs: number;

  constructor(options: EsignClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('EsignClient: apiKey is required (a svc_live_ key or the sandbox token)');
    }
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
      throw new TypeError('EsignClient: baseUrl must be an http(s) URL, e.g. http://localhost:8080');
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new TypeError('EsignClient: no fetch available (Node 18+ has one; or pass options.fetch)');
    }
    this.apiKey = options.apiKey.trim();
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Called as a plain function: some fetch implementations refuse another `this`.
    this.fetchImpl = (input, init) => fetchImpl(input, init);
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_MAX_RETRIES));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  }

  // ---- operations: one thin method each over request() -------------------------------------------

  /**
   * Signs a document (`POST /api/v1/sign`). An `Idempotency-Key` is generated unless given in
   * `options` and reused by every retry, so a retried call never signs twice.
   */
  async signDocument(input: SignDocumentInput, options: RequestOptions = {}): Promise<SignedDocument> {
    const { file, fileName, ...fields } = input;
    const part = await toFilePart(file, fileName);
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      // Numbers as their decimal text; positions as the JSON array the server parses.
      form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    form.append('file', part.blob, part.fileName);
    const res = await this.request('signDocument', { form }, options);
    const header = this.headerReader(res);
    return {
      bytes: res.body,
      auditId: header('X-Audit-Id'),
      signedAt: header('X-Signed-At'),
      fileHash: header('X-File-Hash'),
      fileName: fileNameOfDisposition(header('Content-Disposition')) ?? `${part.fileName}-signed.pdf`,
      replayed: res.headers.get('Idempotent-Replayed' satisfies SuccessHeaderOf<'signDocument'>) === 'true',
      idempotencyKey: res.idempotencyKey ?? '',
    };
  }

  /** The field reference of `POST /api/v1/sign` as JSON (`GET /api/v1/sign`; needs no credential). */
  getSignReference(options: RequestOptions = {}): Promise<SignFieldReference> {
    return this.requestJson('getSignReference', {}, options);
  }

  /** Every contract template with the fields it fills (`GET /api/v1/templates`). */
  listTemplates(options: RequestOptions = {}): Promise<TemplateList> {
    return this.requestJson('listTemplates', {}, options);
  }

  /** Fills a template (`POST /api/v1/templates/generate`): the PDF and where each party signs. */
  async generateTemplate(
    body: GenerateTemplateRequest,
    options: RequestOptions = {},
  ): Promise<GeneratedTemplate> {
    const res = await this.request('generateTemplate', { json: body }, options);
    const header = this.headerReader(res);
    return {
      bytes: res.body,
      fileName: fileNameOfDisposition(header('Content-Disposition')) ?? `${body.slug}.pdf`,
      slug: header('X-Template-Slug'),
      positions: JSON.parse(header('X-Signature-Positions')) as SignPosition[],
      pageCount: Number(header('X-Page-Count')),
    };
  }

  /** A page of the account's signed documents (`GET /api/v1/documents`). */
  listDocuments(query: ListDocumentsQuery = {}, options: RequestOptions = {}): Promise<DocumentList> {
    return this.requestJson('listDocuments', { query }, options);
  }

  /** One signed document with its audit log (`GET /api/v1/documents/{auditId}`); 404 if unknown. */
  getDocument(auditId: string, options: RequestOptions = {}): Promise<DocumentDetail> {
    return this.requestJson('getDocument', { params: { auditId } }, options);
  }

  /**
   * The signed PDF of one of the account's documents (`GET /api/v1/documents/{auditId}/pdf`), however
   * it was signed (API, dashboard, send for signing); 404 if unknown.
   */
  async downloadDocument(auditId: string, options: RequestOptions = {}): Promise<DownloadedDocument> {
    const res = await this.request('downloadDocument', { params: { auditId } }, options);
    const header = this.headerReader(res);
    return {
      bytes: res.body,
      auditId: header('X-Audit-Id'),
      signedAt: header('X-Signed-At'),
      fileHash: header('X-File-Hash'),
      fileName: fileNameOfDisposition(header('Content-Disposition')) ?? `${auditId}-signed.pdf`,
    };
  }

  /** Deterministic mock signing data (`POST /api/v1/sandbox/sign`); construct the client with the sandbox token. */
  sandboxSign(body: SandboxSignRequest, options: RequestOptions = {}): Promise<SandboxSignResult> {
    return this.requestJson('sandboxSign', { json: body }, options);
  }

  /** Registers a webhook endpoint (`POST /api/v1/webhooks`); the answer holds its secret, this once. */
  createWebhook(body: CreateWebhookRequest, options: RequestOptions = {}): Promise<NewWebhook> {
    return this.requestJson('createWebhook', { json: body }, options);
  }

  /** The account's webhook endpoints (`GET /api/v1/webhooks`). */
  listWebhooks(options: RequestOptions = {}): Promise<WebhookList> {
    return this.requestJson('listWebhooks', {}, options);
  }

  /** One webhook endpoint (`GET /api/v1/webhooks/{webhookId}`). */
  getWebhook(webhookId: string, options: RequestOptions = {}): Promise<Webhook> {
    return this.requestJson('getWebhook', { params: { webhookId } }, options);
  }

  /** Changes an endpoint, or disables / re-enables it (`PATCH /api/v1/webhooks/{webhookId}`). */
  updateWebhook(
    webhookId: string,
    body: UpdateWebhookRequest,
    options: RequestOptions = {},
  ): Promise<Webhook> {
    return this.requestJson('updateWebhook', { params: { webhookId }, json: body }, options);
  }

  /** Removes an endpoint and its delivery log (`DELETE /api/v1/webhooks/{webhookId}`). */
  async deleteWebhook(webhookId: string, options: RequestOptions = {}): Promise<void> {
    await this.request('deleteWebhook', { params: { webhookId } }, options);
  }

  /**
   * A new secret for an endpoint (`POST /api/v1/webhooks/{webhookId}/rotate-secret`); the previous one
   * keeps signing alongside it for `overlapHours` (default 24).
   */
  rotateWebhookSecret(
    webhookId: string,
    body: { overlapHours?: number } = {},
    options: RequestOptions = {},
  ): Promise<RotatedWebhookSecret> {
    return this.requestJson('rotateWebhookSecret', { params: { webhookId }, json: body }, options);
  }

  /** An endpoint's delivery log, newest first (`GET /api/v1/webhooks/{webhookId}/deliveries`). */
  listWebhookDeliveries(
    webhookId: string,
    query: ListWebhookDeliveriesQuery = {},
    options: RequestOptions = {},
  ): Promise<WebhookDeliveryList> {
    return this.requestJson('listWebhookDeliveries', { params: { webhookId }, query }, options);
  }

  /** Delivers an earlier event to the endpoint again (`POST /api/v1/webhooks/{webhookId}/events/{eventId}/replay`). */
  replayWebhookEvent(
    webhookId: string,
    eventId: string,
    options: RequestOptions = {},
  ): Promise<WebhookDelivery> {
    return this.requestJson('replayWebhookEvent', { params: { webhookId, eventId } }, options);
  }

  /** Sends a `webhook.test` event to the endpoint (`POST /api/v1/webhooks/{webhookId}/test`). */
  sendTestWebhook(webhookId: string, options: RequestOptions = {}): Promise<WebhookDelivery> {
    return this.requestJson('sendTestWebhook', { params: { webhookId } }, options);
  }

  /**
   * Sends a PDF to a recipient to sign by email (`POST /api/v1/send`). An `Idempotency-Key` is
   * generated unless given in `options` and reused by every retry, so a retried call sends one email.
   */
  async sendForSigning(input: SendForSigningInput, options: RequestOptions = {}): Promise<SendResult> {
    const { file, fileName, ...fields } = input;
    const part = await toFilePart(file, fileName);
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    form.append('file', part.blob, part.fileName);
    const res = await this.request('sendForSigning', { form }, options);
    return JSON.parse(new TextDecoder().decode(res.body)) as SendResult;
  }

  /**
   * Sends a PDF to several recipients, in order (`POST /api/v1/envelopes`). An `Idempotency-Key` is
   * generated unless given in `options` and reused by every retry, so a retried call makes one envelope.
   */
  async createEnvelope(input: CreateEnvelopeInput, options: RequestOptions = {}): Promise<Envelope> {
    const { file, fileName, ...fields } = input;
    const part = await toFilePart(file, fileName);
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    form.append('file', part.blob, part.fileName);
    const res = await this.request('createEnvelope', { form }, options);
    return JSON.parse(new TextDecoder().decode(res.body)) as Envelope;
  }

  /** An envelope and where each recipient stands (`GET /api/v1/envelopes/{envelopeId}`). */
  getEnvelope(envelopeId: string, options: RequestOptions = {}): Promise<Envelope> {
    return this.requestJson('getEnvelope', { params: { envelopeId } }, options);
  }

  /** A page of the account's envelopes, newest first (`GET /api/v1/envelopes`). */
  listEnvelopes(query: ListEnvelopesQuery = {}, options: RequestOptions = {}): Promise<EnvelopeList> {
    return this.requestJson('listEnvelopes', { query }, options);
  }

  /** Cancels a pending envelope (`POST /api/v1/envelopes/{envelopeId}/cancel`): its links stop working. */
  cancelEnvelope(envelopeId: string, options: RequestOptions = {}): Promise<Envelope> {
    return this.requestJson('cancelEnvelope', { params: { envelopeId } }, options);
  }

  /**
   * A signing URL for an embedded recipient whose turn has come
   * (`POST /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/signing-url`): show it in an iframe
   * of one of the account's embed origins (`<esign-signing url="…">`, `@esign/embed`). It opens once,
   * within 5 minutes: ask for a new one for every page view.
   */
  createSigningUrl(
    envelopeId: string,
    recipientId: string,
    options: RequestOptions = {},
  ): Promise<SigningUrl> {
    return this.requestJson('createSigningUrl', { params: { envelopeId, recipientId } }, options);
  }

  /** The origins allowed to frame the account's embedded signing pages (`GET /api/v1/account/embed-origins`). */
  getEmbedOrigins(options: RequestOptions = {}): Promise<EmbedOrigins> {
    return this.requestJson('getEmbedOrigins', {}, options);
  }

  /**
   * Replaces the origins allowed to frame the account's embedded signing pages
   * (`PUT /api/v1/account/embed-origins`): exact origins such as `https://app.example.com`, at most 10.
   */
  setEmbedOrigins(origins: readonly string[], options: RequestOptions = {}): Promise<EmbedOrigins> {
    return this.requestJson('setEmbedOrigins', { json: { origins: [...origins] } }, options);
  }

  /**
   * Emails a recipient whose turn has come a new link (`POST
   * /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/resend`); their earlier links stop working.
   */
  resendEnvelopeRecipient(
    envelopeId: string,
    recipientId: string,
    options: RequestOptions = {},
  ): Promise<Envelope> {
    return this.requestJson('resendEnvelopeRecipient', { params: { envelopeId, recipientId } }, options);
  }

  /**
   * Puts another person in the place of a recipient who has not acted (`POST
   * /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/replace`): same role, group and fields; the
   * replaced person's links stop working, and the new person is emailed at once if it is their turn.
   */
  replaceEnvelopeRecipient(
    envelopeId: string,
    recipientId: string,
    body: ReplaceRecipientRequest,
    options: RequestOptions = {},
  ): Promise<Envelope> {
    return this.requestJson(
      'replaceEnvelopeRecipient',
      { params: { envelopeId, recipientId }, json: body },
      options,
    );
  }

  /**
   * The envelope's document as it stands (`GET /api/v1/envelopes/{envelopeId}/document`): the final
   * document once completed, before that a copy marked as not yet complete (`complete: false`).
   */
  async getEnvelopeDocument(envelopeId: string, options: RequestOptions = {}): Promise<EnvelopeDocument> {
    const res = await this.request('getEnvelopeDocument', { params: { envelopeId } }, options);
    return {
      bytes: res.body,
      complete: res.headers.get('X-Complete' satisfies SuccessHeaderOf<'getEnvelopeDocument'>) === 'true',
      fileName: fileNameOfDisposition(res.headers.get('Content-Disposition')) ?? `${envelopeId}.pdf`,
    };
  }

  /** Where a request sent for signing stands (`GET /api/v1/status`), by its audit ID or sendId. */
  getSigningStatus(id: string, options: RequestOptions = {}): Promise<SigningStatus> {
    return this.requestJson('getSigningStatus', { query: { auditId: id } }, options);
  }

  /** Cancels a pending request (`POST /api/v1/send/{sendId}/cancel`): its links stop working. */
  cancelSend(sendId: string, options: RequestOptions = {}): Promise<SendCanceled> {
    return this.requestJson('cancelSend', { params: { sendId } }, options);
  }

  /** Emails the recipient a new link (`POST /api/v1/send/{sendId}/resend`); earlier links stop working. */
  resendSend(sendId: string, options: RequestOptions = {}): Promise<SendResent> {
    return this.requestJson('resendSend', { params: { sendId } }, options);
  }

  /**
   * Verifies a PDF (`POST /api/v1/verify`; needs no credential): every signature in it and whether
   * this service issued the file.
   */
  async verifyDocument(
    file: FileInput,
    options: RequestOptions & { fileName?: string } = {},
  ): Promise<VerificationReport> {
    const { fileName, ...rest } = options;
    const part = await toFilePart(file, fileName);
    const form = new FormData();
    form.append('file', part.blob, part.fileName);
    return this.requestJson('verifyDocument', { form }, rest);
  }

  /**
   * Whether this service issued a document with this audit ID (`GET /api/v1/verify/{auditId}`; needs
   * no credential); with `hash` (`sha256:<hex>`), whether a copy is exactly that document. 404 if unknown.
   */
  getIssuedDocument(
    auditId: string,
    query: { hash?: string } = {},
    options: RequestOptions = {},
  ): Promise<IssuedDocumentCheck> {
    return this.requestJson('getIssuedDocument', { params: { auditId }, query }, options);
  }

  // ---- the core ------------------------------------------------------------------------------------

  /** Calls an operation and parses its JSON answer, typed from the API document. */
  async requestJson<K extends OperationId>(
    operationId: K,
    input: RequestInput<K>,
    options: RequestOptions = {},
  ): Promise<JsonResultOf<K>> {
    const res = await this.request(operationId, input, options);
    return JSON.parse(new TextDecoder().decode(res.body)) as JsonResultOf<K>;
  }

  /**
   * Calls any operation of the API document by its operationId: builds the URL from the path and the
   * query, adds the credential, an `Accept` for the operation's answer and (for operations that take
   * one) the `Idempotency-Key`, and retries:
   * - after a 429 or a 503, waiting at least the server's `Retry-After` (up to 60 s; longer is thrown);
   * - after a network failure or a timeout, only when repeating is safe: a GET, or an operation with
   *   an `Idempotency-Key` (the same key on every attempt);
   * with exponential backoff and jitter between attempts, at most `maxRetries` times.
   * Resolves with the whole body of a 2xx answer; rejects with EsignApiError or EsignConnectionError.
   */
  async request<K extends OperationId>(
    operationId: K,
    input: RequestInput<K>,
    options: RequestOptions = {},
  ): Promise<ApiResponse<K>> {
    const info = OPERATIONS[operationId];
    const idempotencyKey = info.idempotent ? (options.idempotencyKey ?? randomUUID()) : undefined;
    const url = this.urlOf(info.path, input);
    const headers: Record<string, string> = {
      // Errors are JSON whatever the success type; an answer without a body still gets JSON errors.
      Accept: acceptOf(info.successType),
      'User-Agent': `esign-sdk-node/${SDK_VERSION}`,
      ...input.headers,
    };
    if (info.security !== null) headers.Authorization = `Bearer ${this.apiKey}`;
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    let body: string | FormData | undefined;
    if (input.form !== undefined) {
      body = input.form;
    } else if (input.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(input.json);
    }
    const init: RequestInit = { method: info.method, headers, body };
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const safeToRepeat = info.method === 'GET' || idempotencyKey !== undefined;

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      let bytes: Uint8Array;
      try {
        ({ response, bytes } = await this.attempt(url, init, timeoutMs, options.signal));
      } catch (err) {
        if (options.signal?.aborted) throw abortReason(options.signal);
        if (safeToRepeat && attempt < maxRetries) {
          await sleep(retryDelayMs(attempt, this.retryBaseDelayMs, undefined), options.signal);
          continue;
        }
        const timedOut = err instanceof AttemptTimeout;
        throw new EsignConnectionError({
          message: timedOut
            ? `${operationId}: no answer from ${this.baseUrl} within ${timeoutMs} ms`
            : `${operationId}: could not reach ${this.baseUrl} (${describe(err)})`,
          operationId,
          timedOut,
          cause: err,
        });
      }
      if (response.ok) {
        return {
          operationId,
          status: response.status,
          headers: response.headers,
          body: bytes,
          idempotencyKey,
        };
      }
      const text = new TextDecoder().decode(bytes);
      const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
      const error = new EsignApiError({
        status: response.status,
        message: errorMessageOf(response.status, text),
        retryAfter,
        body: text,
        operationId,
        headers: response.headers,
      });
      const retriable =
        (response.status === 429 || response.status === 503) &&
        attempt < maxRetries &&
        (retryAfter ?? 0) <= MAX_RETRY_AFTER_SECONDS;
      if (!retriable) throw error;
      await sleep(retryDelayMs(attempt, this.retryBaseDelayMs, retryAfter), options.signal);
    }
  }

  /** One attempt: the answer and its whole body, within `timeoutMs`, abortable by the caller. */
  private async attempt(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; bytes: Uint8Array }> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new AttemptTimeout(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.fetchImpl(url, { ...init, signal: controller.signal });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { response, bytes };
    } catch (err) {
      // fetch rejects with the abort reason, or with an AbortError that hides it.
      const reason: unknown = controller.signal.reason;
      throw controller.signal.aborted && reason instanceof AttemptTimeout ? reason : err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private urlOf<K extends OperationId>(path: string, input: RequestInput<K>): string {
    const params: Record<string, unknown> = { ...input.params };
    const filled = path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = params[name];
      if (value === undefined || value === null || value === '') {
        throw new TypeError(`${path}: the path parameter ${name} is required`);
      }
      return encodeURIComponent(paramText(name, value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...input.query } as Record<string, unknown>)) {
      if (value !== undefined && value !== null) search.append(name, paramText(name, value));
    }
    const query = search.toString();
    return `${this.baseUrl}${filled}${query ? `?${query}` : ''}`;
  }

  /** Reads a documented header of a 2xx answer; an answer without it is not the API's. */
  private headerReader<K extends OperationId>(
    res: ApiResponse<K>,
  ): (name: SuccessHeaderOf<K> & string) => string {
    return (name) => {
      const value = res.headers.get(name);
      if (value === null) {
        throw new Error(`${res.operationId}: the answer has no ${name} header (is baseUrl the esign API?)`);
      }
      return value;
    };
  }
}

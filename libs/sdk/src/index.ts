export {
  EsignClient,
  MAX_RETRY_AFTER_SECONDS,
  SDK_VERSION,
  fileNameOfDisposition,
  type ApiResponse,
  type CreateEnvelopeInput,
  type DownloadedDocument,
  type EnvelopeDocument,
  type EsignClientOptions,
  type GeneratedTemplate,
  type RequestInput,
  type RequestOptions,
  type SendForSigningInput,
  type SignDocumentInput,
  type SignedDocument,
} from './client.js';
export { EsignApiError, EsignConnectionError } from './errors.js';
export type { FileInput } from './files.js';
export { OPERATIONS, type OperationId, type OperationInfo } from './generated/operations.js';
export type { components, operations, paths } from './generated/api.js';
export type * from './types.js';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';

/**
 * The SDK's public types, derived from the generated OpenAPI types (src/generated/api.ts) so that they
 * follow the API document; nothing here restates a field.
 */
import type { components, operations } from './generated/api.js';
import type { OperationId } from './generated/operations.js';

type Schemas = components['schemas'];

/** A page of signed documents (`GET /api/v1/documents`). */
export type DocumentList = Schemas['DocumentList'];
/** A signed document as the list shows it. */
export type DocumentRecord = Schemas['DocumentRecord'];
/** One signed document with its hash-chained audit log (`GET /api/v1/documents/{auditId}`). */
export type DocumentDetail = Schemas['DocumentDetail'];
/** One entry of a document's audit log. */
export type AuditLogEntry = Schemas['AuditLogEntry'];
/** Every template (`GET /api/v1/templates`). */
export type TemplateList = Schemas['TemplateList'];
/** A contract template and the fields it fills. */
export type Template = Schemas['Template'];
/** The body of `POST /api/v1/templates/generate`. */
export type GenerateTemplateRequest = Schemas['GenerateTemplateRequest'];
/** The body of `POST /api/v1/sandbox/sign`. */
export type SandboxSignRequest = Schemas['SandboxSignRequest'];
/** Mock signing data from the sandbox. */
export type SandboxSignResult = Schemas['SandboxSignResult'];
export type VerificationReport = Schemas['VerificationReport'];
export type IssuedDocumentCheck = Schemas['IssuedDocumentCheck'];
/** The field reference of `POST /api/v1/sign`. */
export type SignFieldReference = Schemas['SignFieldReference'];
/** A request sent for signing (`POST /api/v1/send`). */
export type SendResult = Schemas['SendResult'];
/** Where a request sent for signing stands (`GET /api/v1/status`): its fields depend on `status`. */
export type SigningStatus = Schemas['SigningStatus'];
/** A canceled request (`POST /api/v1/send/{sendId}/cancel`). */
export type SendCanceled = Schemas['SendCanceled'];
/** A resent request (`POST /api/v1/send/{sendId}/resend`). */
export type SendResent = Schemas['SendResent'];
/** An envelope and where each recipient stands (`POST`/`GET /api/v1/envelopes…`). */
export type Envelope = Schemas['Envelope'];
/** A page of envelopes (`GET /api/v1/envelopes`). */
export type EnvelopeList = Schemas['EnvelopeList'];
/** A single-use URL of an embedded recipient's signing page, to show in an iframe (`<esign-signing>`). */
export type SigningUrl = Schemas['SigningUrl'];
/** The origins allowed to frame the account's embedded signing pages. */
export type EmbedOrigins = Schemas['EmbedOrigins'];
/** Who takes a recipient's place (`POST /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/replace`). */
export type ReplaceRecipientRequest = Schemas['ReplaceRecipientRequest'];
/** An error body: `{ "error": "…" }`. */
export type ErrorBody = Schemas['Error'];

/** The declared parameters of an operation (`query`, `path`, `header`). */
export type ParametersOf<K extends OperationId> = operations[K]['parameters'];
/** The query parameters of an operation. */
export type QueryOf<K extends OperationId> = NonNullable<ParametersOf<K>['query']>;
/** The path parameters of an operation. */
export type PathParamsOf<K extends OperationId> = NonNullable<ParametersOf<K>['path']>;

type ContentOf<T> = T extends { content: infer C } ? C : never;
type RequestContentOf<K extends OperationId> = ContentOf<NonNullable<operations[K]['requestBody']>>;
/** The JSON request body of an operation. */
export type JsonBodyOf<K extends OperationId> =
  RequestContentOf<K> extends { 'application/json': infer B } ? B : never;
/** The multipart fields of an operation. */
export type MultipartOf<K extends OperationId> =
  RequestContentOf<K> extends { 'multipart/form-data': infer F } ? F : never;

type Responses<K extends OperationId> = operations[K]['responses'];
/** The operation's success response (200, 201, 202 or 204, whichever it declares). */
type SuccessOf<K extends OperationId> = Responses<K>[Extract<keyof Responses<K>, 200 | 201 | 202 | 204>];
/** The JSON body of an operation's success answer. */
export type JsonResultOf<K extends OperationId> =
  ContentOf<SuccessOf<K>> extends { 'application/json': infer T } ? T : never;
/** The keys a type names, without its index signature (`[name: string]: unknown`). */
type NamedKeys<T> = keyof { [P in keyof T as string extends P ? never : P]: T[P] };
/** The header names of an operation's success answer, as documented (a misspelt one does not compile). */
export type SuccessHeaderOf<K extends OperationId> = Extract<
  NamedKeys<SuccessOf<K> extends { headers: infer H } ? H : never>,
  string
>;

/** Query of `GET /api/v1/documents`: page, limit, search, dateFrom, dateTo, sortBy, sortDir. */
export type ListDocumentsQuery = QueryOf<'listDocuments'>;

/** The text fields of `POST /api/v1/sign` (the file is given apart, as a FileInput). */
export type SignFields = Omit<MultipartOf<'signDocument'>, 'file'>;
/** Where a signature goes, in percent of the visible page (origin top-left). */
export type SignPosition = NonNullable<SignFields['positions']>[number];

/** A webhook endpoint (`/api/v1/webhooks`). */
export type Webhook = Schemas['Webhook'];
/** A new endpoint with its secret, shown once. */
export type NewWebhook = Schemas['NewWebhook'];
/** The body of `POST /api/v1/webhooks`. */
export type CreateWebhookRequest = Schemas['CreateWebhookRequest'];
/** The body of `PATCH /api/v1/webhooks/{webhookId}`. */
export type UpdateWebhookRequest = Schemas['UpdateWebhookRequest'];
/** The account's endpoints. */
export type WebhookList = Schemas['WebhookList'];
/** A rotated secret. */
export type RotatedWebhookSecret = Schemas['RotatedWebhookSecret'];
/** One event to one endpoint, with its attempts. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** A page of an endpoint's delivery log. */
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];
/** Query of `GET /api/v1/webhooks/{webhookId}/deliveries`: limit, before. */
export type ListWebhookDeliveriesQuery = QueryOf<'listWebhookDeliveries'>;
/** Every event we send to webhook endpoints, told apart by `type`. */
export type WebhookEvent =
  | Schemas['DocumentSignedWebhook']
  | Schemas['SigningViewedWebhook']
  | Schemas['SigningCompletedWebhook']
  | Schemas['SigningDeclinedWebhook']
  | Schemas['SigningExpiredWebhook']
  | Schemas['WebhookTestWebhook'];
/** The text fields of `POST /api/v1/send` (the PDF is given apart, as a FileInput). */
export type SendFields = Omit<MultipartOf<'sendForSigning'>, 'file'>;
/** The text fields of `POST /api/v1/envelopes` (the PDF is given apart, as a FileInput). */
export type EnvelopeFields = Omit<MultipartOf<'createEnvelope'>, 'file'>;
/** Query of `GET /api/v1/envelopes`: status, limit, cursor. */
export type ListEnvelopesQuery = QueryOf<'listEnvelopes'>;

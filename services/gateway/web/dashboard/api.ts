import { WEBHOOK_EVENT_TYPES as EVENT_TYPES } from '@esign/contracts/constants';
import type { Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../../libs/sdk/src/generated/api';
import type {
  DocumentRecord,
  Envelope,
  EnvelopeFields,
  ListDocumentsQuery,
  Webhook,
  WebhookDelivery,
} from '../../../../libs/sdk/src/types';
import { createApiClient } from '../shared/http';

/** Fired when a request finds the session gone (idle or absolute end, signed out elsewhere). */
export const SESSION_ENDED = 'esign:session-ended';

// The types the views name, as the SDK generates them from the OpenAPI document (/openapi.json, tags
// Account, API keys and Dashboard): nothing here restates a field.
type Schemas = components['schemas'];

export type Session = Schemas['Session'];
export type ApiKey = Schemas['ApiKey'];
export type NewApiKey = Schemas['NewApiKey'];
// The document and webhook types are the SDK's own public ones.
export type { DocumentRecord, Envelope, EnvelopeFields, Webhook, WebhookDelivery };
export type EnvelopeRecipient = Envelope['recipients'][number];
export type EnvelopeRecipientInput = EnvelopeFields['recipients'][number];
export type EnvelopeFieldInput = EnvelopeRecipientInput['fields'][number];
export type EnvelopeStatus = Envelope['status'];
export type SentRequest = Schemas['SentRequestList']['requests'][number];
export type DocumentQuery = Omit<ListDocumentsQuery, 'cursor'>;
export type WebhookEventType = Webhook['eventTypes'][number];
/** The fields of the dashboard's signing form (POST /api/sign), the file part aside. */
export type SignFields = Omit<
  paths['/api/sign']['post']['requestBody']['content']['multipart/form-data'],
  'file' | 'positions'
>;

/** Every event type, in the order the form lists them (the contracts' own list, not a copy). */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = EVENT_TYPES;

/** The CSRF token of the current session, sent with every change (set at sign-in and on load). */
let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

/**
 * The session's part of every call: a change carries the CSRF token, and a 401 (except from the
 * sign-in calls themselves) means the session ended, which the page learns from one event.
 */
const withSession: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET') request.headers.set('X-CSRF-Token', csrfToken);
  },
  onResponse({ response, schemaPath }) {
    if (response.status === 401 && !schemaPath.startsWith('/api/auth/')) {
      window.dispatchEvent(new Event(SESSION_ENDED));
    }
  },
};

/**
 * The dashboard's calls to the gateway (same origin, session cookie), typed by the OpenAPI
 * document; views call it through `answerOf` (shared/http.ts).
 */
export const client = createApiClient(withSession);

/**
 * The multipart body of POST /api/sign: each field as text, in the form's order, and the file part
 * last (the generated type names that part by a string, OpenAPI's `format: binary`).
 */
export const signingForm = (fields: SignFields, file: File): FormData => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.set(name, String(value));
  }
  form.set('file', file, file.name);
  return form;
};

/** Where a document's signed PDF downloads from (a link, not a call). */
export const downloadUrl = (auditId: string): string => `/api/documents/${encodeURIComponent(auditId)}/pdf`;

/**
 * The multipart body of POST /api/envelopes: `recipients` (and `reminders`) as JSON text, the other
 * fields as text, the PDF last.
 */
export const envelopeForm = (fields: EnvelopeFields, file: File): FormData => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    form.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  form.set('file', file, file.name);
  return form;
};

/** Where an envelope's document downloads from: complete, or a copy marked NOT COMPLETE before that. */
export const envelopeDocumentUrl = (envelopeId: string): string =>
  `/api/envelopes/${encodeURIComponent(envelopeId)}/document`;

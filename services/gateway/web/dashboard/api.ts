import type { components } from '../../../../libs/sdk/src/generated/api';
import type {
  AuditLogEntry as AuditEntry,
  DocumentDetail,
  DocumentList,
  DocumentRecord,
  ListDocumentsQuery,
  Webhook,
  WebhookDelivery,
} from '../../../../libs/sdk/src/types';
import { ApiError, request as send } from '../shared/http';

/** Fired when a request finds the session gone (idle or absolute end, signed out elsewhere). */
export const SESSION_ENDED = 'esign:session-ended';

/** A request with the session: a 401 means it ended, which the page learns from one event. */
const request = async <T>(path: string, init?: RequestInit): Promise<T> => {
  try {
    return await send<T>(path, init);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && !path.startsWith('/api/auth/')) {
      window.dispatchEvent(new Event(SESSION_ENDED));
    }
    throw err;
  }
};

// The dashboard's calls to the gateway (same origin, session cookie). Their types are those of the
// OpenAPI document (/openapi.json, tags Account, API keys and Dashboard), as the SDK generates them:
// nothing here restates a field.
type Schemas = components['schemas'];

export type Usage = Schemas['Usage'];
export type Session = Schemas['Session'];
export type Plan = Session['plan'];
export type ApiKey = Schemas['ApiKey'];
export type NewApiKey = Schemas['NewApiKey'];
// The document and webhook types are the SDK's own public ones.
export type { AuditEntry, DocumentDetail, DocumentList, DocumentRecord, Webhook, WebhookDelivery };
export type Signed = Schemas['DashboardSigned'];
export type SentRequestList = Schemas['SentRequestList'];
export type SentRequest = SentRequestList['requests'][number];
export type DocumentQuery = Omit<ListDocumentsQuery, 'cursor'>;
export type WebhookEventType = Webhook['eventTypes'][number];
export type WebhookAttempt = Schemas['WebhookAttempt'];

/** Every event type, in the order the form lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'document.signed',
  'signing.viewed',
  'signing.completed',
  'signing.declined',
  'signing.expired',
] as const satisfies readonly WebhookEventType[];

/** The CSRF token of the current session, sent with every change (set at sign-in and on load). */
let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export const api = {
  session: () => request<Session>('/api/session'),
  signIn: (email: string, password: string) =>
    request<{ email: string; plan: Plan; csrfToken: string; expiresAt: string }>(
      '/api/auth/sign-in',
      json('POST', { email, password }),
    ),
  signUp: (email: string, password: string) =>
    request<{ accepted: true; message: string }>('/api/auth/sign-up', json('POST', { email, password })),
  requestSignInLink: (email: string) =>
    request<{ accepted: true; message: string }>('/api/auth/sign-in-link', json('POST', { email })),
  redeemSignInLink: (token: string) =>
    request<{ email: string; plan: Plan; csrfToken: string; expiresAt: string }>(
      '/api/auth/sign-in-link/redeem',
      json('POST', { token }),
    ),
  signOut: () => request<undefined>('/api/auth/sign-out', json('POST')),
  keys: () => request<{ keys: ApiKey[] }>('/api/keys'),
  createKey: (name: string) => request<NewApiKey>('/api/keys', json('POST', name ? { name } : {})),
  revokeKey: (id: string) =>
    request<{ id: string; revokedAt: string; alreadyRevoked: boolean }>(
      `/api/keys?id=${encodeURIComponent(id)}`,
      json('DELETE'),
    ),
  webhooks: () => request<{ webhooks: Webhook[] }>('/api/webhooks'),
  createWebhook: (url: string, eventTypes: WebhookEventType[], description: string) =>
    request<{ webhook: Webhook; secret: string }>(
      '/api/webhooks',
      json('POST', { url, eventTypes, ...(description ? { description } : {}) }),
    ),
  webhook: (id: string) => request<Webhook>(`/api/webhooks/${encodeURIComponent(id)}`),
  updateWebhook: (id: string, change: { enabled?: boolean }) =>
    request<Webhook>(`/api/webhooks/${encodeURIComponent(id)}`, json('PATCH', change)),
  deleteWebhook: (id: string) =>
    request<undefined>(`/api/webhooks/${encodeURIComponent(id)}`, json('DELETE')),
  rotateWebhookSecret: (id: string, overlapHours: number) =>
    request<{ secret: string; previousSecretExpiresAt: string | null }>(
      `/api/webhooks/${encodeURIComponent(id)}/rotate-secret`,
      json('POST', { overlapHours }),
    ),
  sendTestWebhook: (id: string) =>
    request<WebhookDelivery>(`/api/webhooks/${encodeURIComponent(id)}/test`, json('POST')),
  webhookDeliveries: (id: string) =>
    request<{ deliveries: WebhookDelivery[]; nextCursor: string | null }>(
      `/api/webhooks/${encodeURIComponent(id)}/deliveries?limit=20`,
    ),
  replayWebhookEvent: (id: string, eventId: string) =>
    request<WebhookDelivery>(
      `/api/webhooks/${encodeURIComponent(id)}/events/${encodeURIComponent(eventId)}/replay`,
      json('POST'),
    ),
  documents: (query: DocumentQuery) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== '') params.set(name, String(value));
    }
    return request<DocumentList>(`/api/documents?${params.toString()}`);
  },
  document: (auditId: string) => request<DocumentDetail>(`/api/documents/${encodeURIComponent(auditId)}`),
  downloadUrl: (auditId: string) => `/api/documents/${encodeURIComponent(auditId)}/pdf`,
  sent: (page: number, limit: number) => request<SentRequestList>(`/api/sends?page=${page}&limit=${limit}`),
  sign: (form: FormData, idempotencyKey: string) =>
    request<Signed>('/api/sign', {
      method: 'POST',
      headers: { 'X-CSRF-Token': csrfToken, 'Idempotency-Key': idempotencyKey },
      body: form,
    }),
};

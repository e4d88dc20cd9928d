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

// The dashboard's calls to the gateway (same origin, session cookie). Types follow the public schemas
// of the OpenAPI document (/openapi.json, tags Account, API keys and Dashboard).

export type Plan = 'free' | 'pro' | 'business';

export interface Usage {
  limits: { documentsPerMonth: number | null; apiAccess: boolean; maxFileBytes: number };
  month: string;
  documentsUsed: number;
  documentsRemaining: number | null;
  resetsAt: string;
}

export interface Session {
  email: string;
  plan: Plan;
  csrfToken: string;
  expiresAt: string;
  idleExpiresAt: string;
  usage: Usage;
}

export interface ApiKey {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
}

export interface NewApiKey {
  id: string;
  name: string | null;
  key: string;
  prefix: string;
  createdAt: string;
}

export interface DocumentRecord {
  id: string;
  fileName: string;
  signerName: string;
  signerEmail: string;
  signedAt: string;
  auditId: string;
  fileHash: string;
  ipAddress: string;
}

export interface DocumentList {
  documents: DocumentRecord[];
  total: number;
  totalExact: boolean;
  page: number;
  pages: number;
  nextCursor: string | null;
}

export interface AuditEntry {
  event: string;
  timestamp: string;
  details: Record<string, unknown>;
  sequence: number;
  prevHash: string;
  hash: string;
}

export interface DocumentDetail extends DocumentRecord {
  userAgent: string;
  originalHash: string;
  size: number;
  pageCount: number;
  createdAt: string;
  auditLog: AuditEntry[];
}

export interface Signed {
  auditId: string;
  signedAt: string;
  fileHash: string;
  fileName: string;
  size: number;
  replayed: boolean;
  downloadUrl: string;
}

export interface SentRequest {
  sendId: string;
  auditId: string;
  fileName: string;
  subject: string;
  recipientName: string;
  recipientEmail: string;
  status: 'pending' | 'signed' | 'declined' | 'canceled' | 'expired';
  sentAt: string;
  expiresAt: string;
  viewedAt: string | null;
  endedAt: string | null;
  declineReason: string | null;
}

export interface SentRequestList {
  requests: SentRequest[];
  total: number;
  page: number;
  pages: number;
}

export interface DocumentQuery {
  search?: string;
  dateFrom?: string;
  dateTo?: string;
  sortBy?: 'signed_at' | 'file_name' | 'created_at';
  sortDir?: 'asc' | 'desc';
  page?: number;
  limit?: number;
}

export const WEBHOOK_EVENT_TYPES = [
  'document.signed',
  'signing.viewed',
  'signing.completed',
  'signing.declined',
  'signing.expired',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface Webhook {
  id: string;
  url: string;
  description: string;
  eventTypes: WebhookEventType[];
  enabled: boolean;
  disabledReason: 'gone' | 'failing' | 'manual' | null;
  disabledAt: string | null;
  failingSince: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookAttempt {
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  succeeded: boolean;
  error: string | null;
  responseExcerpt: string | null;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  kind: 'event' | 'replay' | 'test';
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  attemptLog: WebhookAttempt[];
}

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

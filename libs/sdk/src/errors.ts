/**
 * An error answer of the API (any status other than 2xx), after the client's retries.
 * `message` is the server's `{ "error": "…" }` text, which names the field at fault.
 */
export class EsignApiError extends Error {
  override readonly name = 'EsignApiError';
  /** The HTTP status, e.g. 400, 401, 404, 409, 413, 429, 503. */
  readonly status: number;
  /** Seconds the server asked to wait (`Retry-After`, on 429 and 503), or undefined. */
  readonly retryAfter: number | undefined;
  /** The response body exactly as received (usually `{"error":"…"}`). */
  readonly body: string;
  /** The operation that failed, e.g. `signDocument`. */
  readonly operationId: string;
  /** The response headers. */
  readonly headers: Headers;

  constructor(init: {
    status: number;
    message: string;
    retryAfter: number | undefined;
    body: string;
    operationId: string;
    headers: Headers;
  }) {
    super(init.message);
    this.status = init.status;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
    this.operationId = init.operationId;
    this.headers = init.headers;
  }
}

/**
 * The request got no answer: the connection failed, broke mid-response, or the attempt timed out
 * (`timeoutMs`). Requests that are safe to repeat were retried first; the last failure is `cause`.
 */
export class EsignConnectionError extends Error {
  override readonly name = 'EsignConnectionError';
  /** The operation that failed, e.g. `listDocuments`. */
  readonly operationId: string;
  /** Whether the last attempt failed by running out of `timeoutMs`. */
  readonly timedOut: boolean;

  constructor(init: { message: string; operationId: string; timedOut: boolean; cause: unknown }) {
    super(init.message, { cause: init.cause });
    this.operationId = init.operationId;
    this.timedOut = init.timedOut;
  }
}

/** The `error` text of an error body, or a description of the status when the body is not one. */
export const errorMessageOf = (status: number, body: string): string => {
  try {
    const parsed: unknown = JSON.parse(body);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'error' in parsed &&
      typeof parsed.error === 'string'
    ) {
      return parsed.error;
    }
  } catch {
    // Not JSON (a proxy's HTML page, for example): described below.
  }
  const text = body.trim().slice(0, 200);
  return text ? `HTTP ${status}: ${text}` : `HTTP ${status}`;
};

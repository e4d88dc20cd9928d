/**
 * JSON requests from the gateway's pages to the gateway itself (same origin). Every error answer of
 * the gateway is `{ "error": "<message>" }`; a failed request becomes an `ApiError` carrying that
 * message and the status, so a page can show the message as it is.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Reads an answer: its JSON on 2xx, otherwise an `ApiError` with the gateway's message. */
export const readJson = async <T>(response: Response): Promise<T> => {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message =
      body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
        ? (body as { error: string }).error
        : `The server answered ${response.status}. Please try again.`;
    throw new ApiError(response.status, message);
  }
  return body as T;
};

/** A request to this origin; network failures become an `ApiError` with status 0 and plain words. */
export const request = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  return readJson<T>(response);
};

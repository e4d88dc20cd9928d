import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../../../../libs/sdk/src/generated/api';

/**
 * The pages' calls to the gateway itself (same origin), through one client typed by the OpenAPI
 * document (`paths`, as the SDK generates it): a path, its parameters, its body and its answer are
 * the document's, so no page restates them. Every error answer of the gateway is
 * `{ "error": "<message>", … }`; a failed call becomes an `ApiError` carrying that message, the
 * status and the whole body, so a page can show the message as it is.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error answer's body as the gateway sent it (some carry more than the message). */
    readonly body: unknown = undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type ApiClient = Client<paths>;

/** No answer at all (offline, connection refused): status 0 and plain words. */
const unreachable: Middleware = {
  onError: () => new ApiError(0, 'The server could not be reached. Check your connection and try again.'),
};

/** A client for this origin with the page's own middleware (headers it adds, answers it watches). */
export const createApiClient = (...middleware: Middleware[]): ApiClient => {
  const client = createClient<paths>({ credentials: 'same-origin' });
  client.use(unreachable, ...middleware);
  return client;
};

const messageOf = (body: unknown, status: number): string =>
  body !== null && typeof body === 'object' && 'error' in body && typeof body.error === 'string'
    ? body.error
    : `The server answered ${status}. Please try again.`;

/** What a call of the client resolves to (openapi-fetch's answer, whatever the operation). */
interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** The data of a 2xx answer; any other answer throws an `ApiError` with the gateway's message. */
export const answerOf = async <T>(call: Promise<Answer<T>>): Promise<T> => {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, messageOf(error, response.status), error);
  // A 2xx answer: openapi-fetch parsed its body as the operation's (empty for a 204).
  return data as T;
};

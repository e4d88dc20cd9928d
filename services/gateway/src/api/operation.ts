import type { Readable } from 'node:stream';
import type { TDocumentKind, TErrorCode, TPlan, TPrincipal } from '@esign/contracts';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { ReceivedFile } from '../http/receive-upload';
import type { GatewaySession } from '../http/session';
import type { IdempotencyMode } from './idempotency';

/**
 * Who may call an operation:
 * - `apiKey`: `Authorization: Bearer svc_live_…` of an account with API access (Business plan);
 * - `sandbox`: the deployment's public sandbox token (`svc_sandbox_…`);
 * - `session`: the dashboard session cookie (`__Host-esign_session`, or `esign_session` over plain http
 *   in local development); never an API key. A request that is not a GET must also pass the CSRF check
 *   (an `Origin` or `Referer` of this gateway and the session's `X-CSRF-Token`), see `http/session.ts`;
 * - `none`: anyone (rate-limited per client IP).
 */
export type AuthKind = 'apiKey' | 'sandbox' | 'session' | 'none';

/**
 * How an operation is declared: one of the auth kinds, or `account`, an operation of the signed-in
 * account declared once (`defineAccountOperation`) and mounted twice: at its `/api/v1` path for API
 * keys and at its dashboard path for the session (with the session's CSRF check).
 */
export type DeclaredAuth = AuthKind | 'account';

/** The caller of an `apiKey` operation: the key's account. */
export interface ApiKeyCaller extends TPrincipal {
  readonly kind: 'apiKey';
}

/** The caller of a `session` operation: the signed-in dashboard session (its CSRF check passed). */
export interface SessionCaller extends GatewaySession {
  readonly kind: 'session';
}

/** The caller of a `sandbox` operation: whoever holds the public sandbox token. */
export interface SandboxCaller {
  readonly kind: 'sandbox';
}

/** The caller of an `account` operation: an account, through its API key or its dashboard session. */
export type AccountCaller = ApiKeyCaller | SessionCaller;

/** Who has called, once authenticated: what a handler receives as `caller`, by its operation's auth. */
export interface CallerByAuth {
  readonly apiKey: ApiKeyCaller;
  readonly session: SessionCaller;
  readonly sandbox: SandboxCaller;
  readonly account: AccountCaller;
  /** Public operations know nobody. */
  readonly none: undefined;
}

export type CallerOf<A extends DeclaredAuth> = CallerByAuth[A];

/** A response header an operation sets, described for the OpenAPI document. */
export interface HeaderDeclaration {
  readonly description: string;
  readonly schema: z.ZodType;
  /** Present on every response of that status (default true). */
  readonly required?: boolean;
}

/** One response an operation can give. A body is JSON (with its public schema), binary, or HTML. */
export interface ResponseDeclaration {
  readonly description: string;
  readonly json?: z.ZodType;
  /** Media type of a binary body (for example `application/pdf`). */
  readonly binary?: string;
  /** The response may also be an HTML page (content negotiation on `Accept`). */
  readonly html?: boolean;
  readonly headers?: Readonly<Record<string, HeaderDeclaration>>;
  /** Example JSON body for the document and the Postman collection. */
  readonly example?: unknown;
}

/** The file part of a multipart request. */
export interface FileDeclaration {
  /** Form field name of the file. */
  readonly name: string;
  readonly description: string;
  /** Kinds accepted, taken from the bytes (never from the name or declared type). */
  readonly accept: readonly TDocumentKind[];
  /**
   * Largest file accepted (413 above), from configuration and, when the caller is known before the
   * upload (an API key's or a dashboard session's plan), from who is calling.
   */
  readonly maxBytes: (config: GatewayDeps['config'], caller: { readonly plan: TPlan } | undefined) => number;
  /** Hash the file while it streams (for fingerprints); only when the request needs it. */
  readonly hash?: (headers: Readonly<Record<string, string | undefined>>) => boolean;
}

export interface RequestDeclaration<
  Q extends z.ZodObject,
  P extends z.ZodObject,
  H extends z.ZodObject,
  J extends z.ZodType,
  M extends z.ZodObject,
> {
  readonly query?: Q;
  readonly params?: P;
  /** Request headers the operation reads (names in lower case). */
  readonly headers?: H;
  /** A JSON body (`Content-Type: application/json`). */
  readonly json?: J;
  /** A multipart/form-data body: its text fields and its file. */
  readonly multipart?: { readonly fields: M; readonly file: FileDeclaration };
  /** Example request body (JSON, or multipart fields) for the document and the Postman collection. */
  readonly example?: Record<string, unknown>;
}

/**
 * What a handler is given: the validated request, who made it (`caller`, typed by the operation's auth)
 * and where it came from. `M` is the multipart fields' schema, `never` when the operation takes no
 * multipart body: then there are no fields and no file.
 */
export interface OperationInput<C, Q, P, H, J, M extends z.ZodObject> {
  readonly query: Q;
  readonly params: P;
  readonly headers: H;
  readonly body: J;
  /** Multipart text fields, validated. */
  readonly fields: [M] extends [never] ? Record<string, never> : z.output<M>;
  /** Multipart text fields exactly as sent (for request fingerprints). */
  readonly rawFields: Readonly<Record<string, string>>;
  /** The stored upload of a multipart request (object key, name, kind, size): always there when declared. */
  readonly file: [M] extends [never] ? undefined : ReceivedFile;
  /** Who called, as the operation's auth established it. */
  readonly caller: C;
  readonly client: { readonly ip: string; readonly userAgent: string };
  /** The origin this gateway is reached at: PUBLIC_BASE_URL's, or the request's own (links it hands out). */
  readonly origin: string;
  /** When the request arrived (ISO 8601). */
  readonly receivedAt: string;
  /** Content negotiation: the first of `types` the client accepts. */
  accepts(types: readonly string[]): string | false;
}

/** What a handler answers. The mount function writes it; JSON bodies go out through their public schema. */
export type OperationResult =
  | {
      /** No body (204). */
      readonly status: number;
      readonly empty: true;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly status: number;
      readonly json: unknown;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly status: number;
      readonly html: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly status: number;
      /** A body streamed from object storage (or elsewhere), with its length. */
      readonly stream: Readable;
      readonly contentType: string;
      readonly size: number;
      readonly headers?: Readonly<Record<string, string>>;
      /** Called once the response is finished or the client is gone. */
      readonly onClose?: () => void;
    };

/** What every operation declares, whatever its auth: the method, the documents' text, the request and the answers. */
export interface OperationDeclaration<
  A extends DeclaredAuth,
  Q extends z.ZodObject,
  P extends z.ZodObject,
  H extends z.ZodObject,
  J extends z.ZodType,
  M extends z.ZodObject,
> {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly summary: string;
  readonly description: string;
  readonly auth: A;
  /**
   * A rate limit of its own, per client IP, instead of the default one of its auth kind (sign-in and
   * sign-up: a tight one). Operations with the same `bucket` share a count.
   */
  readonly rateLimit?: {
    readonly bucket: string;
    readonly perMinute: (config: GatewayDeps['config']) => number;
  };
  /**
   * Part of the dashboard's browser API rather than the API for API-key clients (implied by
   * `auth: 'session'`): marked `x-dashboard` in the OpenAPI document, left out of the Postman collection.
   */
  readonly dashboard?: true;
  /**
   * `false`: left out of the Postman collection (marked `x-postman: false`), for an operation whose
   * success needs state that the collection's run cannot make on a deployment it does not own (an
   * embedded recipient's signing URL needs the account's embed origins and an envelope made for it).
   * Its answers are still checked by the end-to-end suite.
   */
  readonly collection?: false;
  /**
   * `ifSent`: a request with an `Origin` header (any browser's POST) must come from this gateway's
   * origin (403 otherwise), so another site cannot submit it (login CSRF); clients without a browser
   * send no Origin. Operations with `auth: 'session'` check more than this (see `AuthKind`).
   */
  readonly originCheck?: 'ifSent';
  /**
   * Takes an `Idempotency-Key` header (validated, documented with the `Idempotent-Replayed` answer
   * header and the 409, and sent fresh by the SDK on every call): `domain` when the handler passes the
   * key to its domain (it declares the header in `request.headers` to read it), `replay` when the
   * operation layer keeps the first 2xx JSON answer for 24 hours and answers a retry with it (only for
   * an account's operations with JSON or no body). See `api/idempotency.ts`.
   */
  readonly idempotency?: IdempotencyMode;
  readonly request: RequestDeclaration<Q, P, H, J, M>;
  /** Success responses by status. */
  readonly responses: Readonly<Record<number, ResponseDeclaration>>;
  /**
   * Error codes the operation itself can answer (their statuses come from the one code table);
   * the ones of its authentication and rate limit are added by the mount function and the document.
   */
  readonly errors: readonly TErrorCode[];
  // A method, not a property: a list of operations (`AnyOperation`) holds handlers of any input.
  handle(
    input: OperationInput<CallerOf<A>, z.output<Q>, z.output<P>, z.output<H>, z.output<J>, M>,
    deps: GatewayDeps,
  ): Promise<OperationResult>;
}

/** Where an operation is served and listed. */
export interface Placement {
  /** OpenAPI operationId and SDK method name, e.g. `signDocument`. */
  readonly id: string;
  /** Path in OpenAPI form: `/api/v1/documents/{auditId}`. */
  readonly path: string;
  /** The resource the operation belongs to: the OpenAPI tag and the Postman folder. */
  readonly tag: string;
}

/** One HTTP operation, declared once: everything the router, the validator and the documents need. */
export interface Operation<
  A extends AuthKind = AuthKind,
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  H extends z.ZodObject = z.ZodObject,
  J extends z.ZodType = z.ZodType,
  M extends z.ZodObject = z.ZodObject,
>
  extends OperationDeclaration<A, Q, P, H, J, M>, Placement {}

/** Declare an operation (types flow from the auth and the request schemas into the handler). */
export const defineOperation = <
  A extends AuthKind,
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  H extends z.ZodObject = z.ZodObject,
  J extends z.ZodType = z.ZodUnknown,
  M extends z.ZodObject = never,
>(
  operation: Operation<A, Q, P, H, J, M>,
): Operation<A, Q, P, H, J, M> => operation;

/** Any operation, whatever its auth and schemas (for lists of operations). */
export type AnyOperation = Operation;

/** Error codes every operation of an auth kind can answer, besides its own. */
export const errorsOfAuth = (auth: AuthKind, method: Operation['method'] = 'get'): TErrorCode[] =>
  auth === 'apiKey'
    ? ['unauthenticated', 'permission_denied', 'rate_limited']
    : auth === 'sandbox'
      ? ['unauthenticated', 'rate_limited']
      : auth === 'session'
        ? // 403: the CSRF check of a state-changing request.
          method === 'get'
          ? ['unauthenticated', 'rate_limited']
          : ['unauthenticated', 'permission_denied', 'rate_limited']
        : ['rate_limited'];

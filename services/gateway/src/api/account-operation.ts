import { z } from 'zod';
import type {
  Operation,
  OperationDeclaration,
  OperationResult,
  Placement,
  ResponseDeclaration,
} from './operation';

/** Where and how an `account` operation is offered to one kind of caller. */
export interface AccountMount extends Placement {
  /** The summary there, when it says more than the operation's. */
  readonly summary?: string;
  /** The description there: its own, or made from the operation's. */
  readonly description?: string | ((description: string) => string);
  /** The success responses there, when that form answers otherwise (its handler tells by `caller.kind`). */
  readonly responses?: Readonly<Record<number, ResponseDeclaration>>;
  /** Every answer there carries `Cache-Control: no-store` (declared on every success response). */
  readonly noStore?: true;
}

/**
 * An operation of the signed-in account, declared once and offered twice: `mounts.apiKey` for API
 * keys (the public API) and `mounts.session` for the dashboard session (cookie; changes also need an
 * Origin of this site and X-CSRF-Token). The handler gets the account either way (`AccountCaller`).
 */
export interface AccountOperation<
  Q extends z.ZodObject,
  P extends z.ZodObject,
  H extends z.ZodObject,
  J extends z.ZodType,
  M extends z.ZodObject,
> extends OperationDeclaration<'account', Q, P, H, J, M> {
  readonly mounts: { readonly apiKey: AccountMount; readonly session: AccountMount };
}

const NO_STORE = { 'Cache-Control': 'no-store' } as const;
const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

const withNoStoreHeader = (
  responses: Readonly<Record<number, ResponseDeclaration>>,
): Record<number, ResponseDeclaration> =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...response.headers, ...NO_STORE_HEADER } },
    ]),
  );

const withNoStore = (result: OperationResult): OperationResult => ({
  ...result,
  headers: { ...result.headers, ...NO_STORE },
});

/** The operation as one kind of caller is offered it. */
const mountedFor = <
  K extends 'apiKey' | 'session',
  Q extends z.ZodObject,
  P extends z.ZodObject,
  H extends z.ZodObject,
  J extends z.ZodType,
  M extends z.ZodObject,
>(
  operation: AccountOperation<Q, P, H, J, M>,
  auth: K,
): Operation<K, Q, P, H, J, M> => {
  const { mounts, ...declaration } = operation;
  const mount = mounts[auth];
  const responses = mount.responses ?? operation.responses;
  return {
    ...declaration,
    auth,
    id: mount.id,
    path: mount.path,
    tag: mount.tag,
    summary: mount.summary ?? operation.summary,
    description:
      typeof mount.description === 'function'
        ? mount.description(operation.description)
        : (mount.description ?? operation.description),
    responses: mount.noStore ? withNoStoreHeader(responses) : responses,
    async handle(input, deps) {
      const result = await operation.handle(input, deps);
      return mount.noStore ? withNoStore(result) : result;
    },
  };
};

/**
 * Declare an operation of the signed-in account once: the result holds it as offered to API keys
 * (`apiKey`) and to the dashboard session (`session`), each listed in `OPERATIONS` where the
 * documents show it.
 */
export const defineAccountOperation = <
  Q extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  H extends z.ZodObject = z.ZodObject,
  J extends z.ZodType = z.ZodUnknown,
  M extends z.ZodObject = never,
>(
  operation: AccountOperation<Q, P, H, J, M>,
): {
  readonly apiKey: Operation<'apiKey', Q, P, H, J, M>;
  readonly session: Operation<'session', Q, P, H, J, M>;
} => ({
  apiKey: mountedFor(operation, 'apiKey'),
  session: mountedFor(operation, 'session'),
});

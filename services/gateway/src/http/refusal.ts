import { ServiceError, type TErrorCode } from '@esign/contracts';

/**
 * Why the edge refused a request before doing its work (the `reason` of `esign.http.refused`):
 * a rate limit (per key, per IP, the sandbox's and an operation's own), the limit on failed
 * authentications per IP, the plan's monthly quota, or a size limit (413, or 431 for headers).
 */
export type TRefusal = 'rate_limit' | 'auth_failures' | 'quota' | 'size';

/**
 * A refusal thrown where the response is out of reach (an upload past its limit, the key service's
 * quota answer): a `ServiceError` like any other, which the error handler also counts by `reason`.
 */
export class RefusedError extends ServiceError {
  constructor(
    code: TErrorCode,
    message: string,
    readonly reason: TRefusal,
    field?: string,
  ) {
    super(code, message, field);
  }
}

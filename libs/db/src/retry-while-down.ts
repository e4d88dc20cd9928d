import { retryWhile, type RetryWhileOptions } from '@esign/telemetry';
import { isDatabaseDown } from './index';

/**
 * Run `write` again while the database is away (`isDatabaseDown`: a restart, a connection ended from
 * the server side), waiting 100 ms and doubling up to 2 s, for at most `withinMs`; any other error,
 * or the outage outlasting `withinMs`, is thrown. For the write that records what was already done
 * outside the database (an email handed to SMTP, a webhook a receiver answered): if a blip made that
 * write fail, the work would look undone and be done twice.
 */
export const retryWhileDown = <T>(write: () => Promise<T>, options: RetryWhileOptions): Promise<T> =>
  retryWhile(write, isDatabaseDown, options);

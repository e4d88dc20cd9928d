import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { Agent } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TimestampAuthorityError } from '../domain/ltv/ports';
import type { TimestampAuthority } from '../domain/ltv/ports';
import type { TimestampSettings } from '../domain/ltv/request-timestamp';

/** The URL as logged and recorded: no credentials, no query. */
const displayUrl = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
};

/** An HTTP answer of a TSA. */
interface TsaAnswer {
  readonly status: number;
  readonly body: Buffer;
}

const TIMEOUT = 'TSA_TIMEOUT';

/**
 * POST the query with node:http(s) over kept-alive connections (undici's fetch costs about three
 * times the CPU per request). The whole exchange, connection included, must finish within
 * `timeoutMs`; the answer may not exceed `limit` bytes. A kept-alive connection the server closed in
 * the meantime fails at once (ECONNRESET): that is retried once on a new connection.
 */
const post = (
  url: URL,
  agent: Agent,
  query: Buffer,
  timeoutMs: number,
  limit: number,
): Promise<TsaAnswer> => {
  const deadline = Date.now() + timeoutMs;
  const attempt = (retry: boolean): Promise<TsaAnswer> =>
    new Promise<TsaAnswer>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/timestamp-query',
          accept: 'application/timestamp-reply',
          'content-length': query.length,
        },
      });
      const timer = setTimeout(() => req.destroy(new Error(TIMEOUT)), Math.max(0, deadline - Date.now()));
      req.on('error', (err) => {
        clearTimeout(timer);
        const reset = 'code' in err && err.code === 'ECONNRESET';
        if (retry && req.reusedSocket && reset && Date.now() < deadline) resolve(attempt(false));
        else reject(err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) req.destroy(new TimestampAuthorityError(`answer larger than ${limit} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
        res.on('error', () => undefined);
        res.on('close', () => {
          clearTimeout(timer);
          if (!res.complete) reject(new Error('the connection closed before the answer ended'));
        });
      });
      req.end(query);
    });
  return attempt(true);
};

/**
 * The TSAs of `settings.urls`, in order, over HTTP(S): each exchange within `timeoutMs`, an answer
 * of at most the largest token plus its TimeStampResp framing, HTTP 200 only.
 */
export const createHttpTimestampAuthorities = (settings: TimestampSettings): TimestampAuthority[] => {
  // One agent per scheme for the worker's lifetime: connections to a TSA are kept alive between signings.
  // A signing has one request in flight at a time and a worker holds at most SIGN_JOBS_PER_WORKER
  // signings (256 at most): that bounds its connections. A smaller cap would queue tokens here, on
  // the clock of their timeout, and cap the worker's signings at cap / round trip (4 / 100 ms: 40 a second).
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 256 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 256 }),
  };
  // The token plus the TimeStampResp around it (status and a few bytes of framing).
  const answerLimit = settings.maxTokenBytes + 1024;
  return settings.urls.map((url) => {
    const parsed = new URL(url);
    const agent = parsed.protocol === 'https:' ? agents.https : agents.http;
    return {
      url: displayUrl(url),
      provider: parsed.host,
      async request(query) {
        let answer: TsaAnswer;
        try {
          answer = await post(parsed, agent, query, settings.timeoutMs, answerLimit);
        } catch (err) {
          if (err instanceof Error && err.message === TIMEOUT) {
            throw new TimestampAuthorityError(`no answer within ${settings.timeoutMs} ms`);
          }
          throw err;
        }
        if (answer.status !== 200) throw new TimestampAuthorityError(`HTTP ${answer.status}`);
        return answer.body;
      },
    };
  });
};

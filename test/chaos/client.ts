/**
 * The harness's HTTP client: one multipart POST with an Idempotency-Key on a fresh connection, whose
 * every outcome (a status, a reset, no answer within the bound) is an answer, never a throw.
 */
import { createHash, randomUUID } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';

export interface Answer {
  readonly key: string;
  /** When it was sent and answered (performance.now()). */
  readonly startedAt: number;
  readonly endedAt: number;
  status: number | 'reset' | 'hang';
  auditId?: string;
  fileHash?: string;
  /** SHA-256 of the bytes received. */
  bodyHash?: string;
  retryAfter?: string;
  ms: number;
  error?: string;
}

export interface Form {
  readonly body: Buffer;
  readonly contentType: string;
}

/** A multipart body: the text fields, then the PDF as `file`. */
export const multipart = (file: Buffer, fields: Record<string, string>): Form => {
  const boundary = `----chaos${randomUUID()}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const body = Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="chaos.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
};

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * One POST of `form` to `path` (default the signing endpoint) with an Idempotency-Key; never throws
 * (resets and hangs are answers too). A 2xx keeps no body text; any other status keeps its first 200
 * characters as `error`.
 */
export const post = (
  gatewayUrl: string,
  apiKey: string,
  form: Form,
  key: string,
  boundMs: number,
  path = '/api/v1/sign',
): Promise<Answer> =>
  new Promise((resolve) => {
    const url = new URL(`${gatewayUrl}${path}`);
    const started = performance.now();
    const done = (a: Omit<Answer, 'key' | 'ms' | 'startedAt' | 'endedAt'>) => {
      const endedAt = performance.now();
      resolve({ key, ms: endedAt - started, startedAt: started, endedAt, ...a });
    };
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        // A fresh connection per request: a killed gateway must not poison a pooled socket.
        agent: false,
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': form.contentType,
          'Content-Length': form.body.length,
          'Idempotency-Key': key,
        },
        timeout: boundMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => done({ status: 'reset', error: err.message }));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const status = res.statusCode ?? 0;
          done({
            status,
            auditId: header(res.headers, 'x-audit-id'),
            fileHash: header(res.headers, 'x-file-hash'),
            bodyHash: createHash('sha256').update(body).digest('hex'),
            retryAfter: header(res.headers, 'retry-after'),
            ...(status >= 200 && status < 300 ? {} : { error: body.toString('utf8').slice(0, 200) }),
          });
        });
      },
    );
    req.on('timeout', () => {
      req.destroy();
      done({ status: 'hang', error: `no answer within ${boundMs} ms` });
    });
    req.on('error', (err) => done({ status: 'reset', error: err.message }));
    req.end(form.body);
  });

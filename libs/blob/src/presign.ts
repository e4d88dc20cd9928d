import { createHash, createHmac } from 'node:crypto';

/** What a presigned URL is made from. */
export interface PresignOptions {
  /** `http(s)://host[:port]` of the S3 endpoint (path-style addressing). */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
}

/**
 * Presign one request: method, bucket, key, extra query parameters (S3's own: partNumber, uploadId),
 * and `x-amz-*` headers the request will carry (S3 refuses a presigned request with an `x-amz-*`
 * header its signature does not cover, so they are signed; the request must send them unchanged).
 */
export type Presigner = (
  method: 'GET' | 'PUT' | 'DELETE',
  bucket: string,
  key: string,
  expiresSeconds: number,
  params?: Readonly<Record<string, string>>,
  now?: Date,
  headers?: Readonly<Record<string, string>>,
) => string;

/** S3's URI encoding: everything but unreserved characters, and `/` too unless it separates a path. */
const encode = (value: string, keepSlash = false): string => {
  const encoded = encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
};

/** The `x-amz-copy-source` of a copy of `key` in `bucket` (S3 wants it URI-encoded, slashes kept). */
export const copySourceOf = (bucket: string, key: string): string =>
  `/${encode(bucket)}/${encode(key, true)}`;

/**
 * SigV4's signed and canonical headers: lower-case names in order, values trimmed with runs of
 * spaces folded. Only `host` for a plain transfer (the common case, kept free of work).
 */
const canonicalHeadersOf = (host: string, headers: Readonly<Record<string, string>>) => {
  const extra = Object.entries(headers);
  if (extra.length === 0) return { signedHeaders: 'host', canonicalHeaders: `host:${host}\n` };
  const all = [
    ['host', host] as const,
    ...extra.map(([name, value]) => [name.toLowerCase(), value.trim().replace(/ +/g, ' ')] as const),
  ].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    signedHeaders: all.map(([name]) => name).join(';'),
    canonicalHeaders: all.map(([name, value]) => `${name}:${value}\n`).join(''),
  };
};

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * AWS Signature Version 4 query presigning (UNSIGNED-PAYLOAD; host the only signed header unless the
 * request carries `x-amz-*` headers), as S3, MinIO and the embedded server accept it. The same URL minio-js makes, without its per-call checks,
 * bucket-region lookup and request-options object: the signing key is derived once per day instead of
 * with four HMACs on every call, and nothing else is repeated. Data transfers presign two to three
 * URLs per signed document.
 */
export const createPresigner = (options: PresignOptions): Presigner => {
  const endpoint = new URL(options.endpoint);
  const base = `${endpoint.protocol}//${endpoint.host}`;
  // URL.host leaves out a default port, as the Host header the client sends does.
  const host = endpoint.host;
  const credentialPrefix = `${options.accessKey}/`;
  let signingDay = '';
  let signingKey = Buffer.alloc(0);
  const keyFor = (day: string) => {
    if (day !== signingDay) {
      const dateKey = hmac(`AWS4${options.secretKey}`, day);
      signingKey = hmac(hmac(hmac(dateKey, options.region), 's3'), 'aws4_request');
      signingDay = day;
    }
    return signingKey;
  };

  return (method, bucket, key, expiresSeconds, params = {}, now = new Date(), headers = {}) => {
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const scope = `${day}/${options.region}/s3/aws4_request`;
    const { signedHeaders, canonicalHeaders } = canonicalHeadersOf(host, headers);
    const query = [
      ...Object.entries(params).map(([k, v]) => `${encode(k)}=${encode(v)}`),
      'X-Amz-Algorithm=AWS4-HMAC-SHA256',
      `X-Amz-Credential=${encode(credentialPrefix + scope)}`,
      `X-Amz-Date=${amzDate}`,
      `X-Amz-Expires=${expiresSeconds}`,
      `X-Amz-SignedHeaders=${encode(signedHeaders)}`,
    ]
      .sort()
      .join('&');
    const path = `/${encode(bucket)}/${encode(key, true)}`;
    const canonical = `${method}\n${path}\n${query}\n${canonicalHeaders}\n${signedHeaders}\nUNSIGNED-PAYLOAD`;
    const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
    const signature = createHmac('sha256', keyFor(day)).update(toSign).digest('hex');
    return `${base}${path}?${query}&X-Amz-Signature=${signature}`;
  };
};

import type { IncomingMessage, ServerResponse } from 'node:http';
import { S3Failure } from './failures';
import type { Store } from './store';
import { XML_DECL, xmlEscape } from './xml';

/** The query string, by parameter name (S3 never repeats one). */
export type Query = Map<string, string>;

/** XML request bodies (bucket configuration, lifecycle, complete, multi-delete) are small. */
const MAX_XML_BODY = 2 * 1024 * 1024;

export const parseQuery = (search: string): Query => {
  const query: Query = new Map();
  for (const [name, value] of new URLSearchParams(search)) query.set(name, value);
  return query;
};

/** A small (XML) request body as text. */
export const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_XML_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_XML_BODY)
        reject(new S3Failure(400, 'MaxMessageLengthExceeded', 'Request body too large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
    // After 'end' this is a no-op; before it, the client went away mid-body.
    req.on('close', () => reject(new Error('request closed before its body ended')));
  });

export const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

export const expectedLength = (req: IncomingMessage) => {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
};

export const send = (
  store: Store,
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body?: string,
) => {
  const buf = body === undefined ? undefined : Buffer.from(body);
  headers['Content-Length'] = buf ? buf.length : 0;
  headers['x-amz-request-id'] = store.nextRequestId();
  res.writeHead(status, headers);
  res.end(buf);
};

export const sendXml = (store: Store, res: ServerResponse, xml: string, status = 200) =>
  send(store, res, status, { 'Content-Type': 'application/xml' }, XML_DECL + xml);

/** The S3 `<Error>` document (or, for HEAD, the bare status). */
export const sendFailure = (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  failure: S3Failure,
  resource: string,
) => {
  if (req.method === 'HEAD') {
    send(store, res, failure.status, {});
    return;
  }
  let extra = '';
  for (const [name, value] of Object.entries(failure.extra))
    extra += `<${name}>${xmlEscape(value)}</${name}>`;
  sendXml(
    store,
    res,
    `<Error><Code>${failure.code}</Code><Message>${xmlEscape(failure.message)}</Message>${extra}` +
      `<Resource>${xmlEscape(resource)}</Resource><RequestId>${store.lastRequestId()}</RequestId></Error>`,
    failure.status,
  );
};

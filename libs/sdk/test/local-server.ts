import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the local server received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** performance.now() when the request arrived. */
  readonly at: number;
}

export type Answer = (req: ReceivedRequest, res: ServerResponse, index: number) => void;

export interface LocalServer {
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers with `answer` (called with
 * the request's index, 0 for the first), so the client is tested over real sockets, fetch unmocked.
 */
export const startLocalServer = async (answer: Answer): Promise<LocalServer> => {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at,
      };
      requests.push(received);
      answer(received, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
};

/** Answers JSON. */
export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** A minimal signed-PDF answer with the headers signDocument reads. */
export const signedPdf = (res: ServerResponse, extra: Record<string, string> = {}) => {
  const bytes = Buffer.from('%PDF-1.7\n%fake signed\n');
  res.writeHead(200, {
    'Content-Type': 'application/pdf',
    'Content-Length': String(bytes.length),
    'Content-Disposition': `attachment; filename="contract-signed.pdf"; filename*=UTF-8''contract-signed.pdf`,
    'X-Audit-Id': 'ESG-AAAA-BBBB-CCCC',
    'X-Signed-At': '2026-11-23T12:00:00.000Z',
    'X-File-Hash': 'sha256:0000',
    ...extra,
  });
  res.end(bytes);
};

/** The multipart form of a received request, parsed by the platform's own parser. */
export const formOf = (req: ReceivedRequest): Promise<FormData> =>
  new Response(req.body, { headers: { 'Content-Type': String(req.headers['content-type']) } }).formData();

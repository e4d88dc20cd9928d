import type { Socket } from 'node:net';

/** Statuses for what Node's HTTP parser refuses, by its error code. */
const STATUS_OF: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers are larger than 16 KB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request was not received in time'],
};

/** A request the parser refused for its size (headers over 16 KB: 431). */
export const isRefusedBySize = (err: Error & { code?: string }): boolean =>
  err.code === 'HPE_HEADER_OVERFLOW';

/**
 * `clientError` of the HTTP server: a request the parser refuses (a malformed request line, a NUL in a
 * header, conflicting Content-Length, headers over 16 KB, a request timeout) is answered with the JSON
 * error shape every other error has, and the connection closed.
 */
export const answerClientError = (err: Error & { code?: string }, socket: Socket): void => {
  if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = STATUS_OF[err.code ?? ''] ?? [
    400,
    'Bad Request',
    'malformed HTTP request',
  ];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
};

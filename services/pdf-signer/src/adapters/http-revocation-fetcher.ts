import type { RevocationFetcher } from '../domain/ltv/ports';
import type { RevocationSettings } from '../domain/ltv/revocation';

const fetchBytes = async (url: string, init: RequestInit, timeoutMs: number, maxBytes: number) => {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  if (body.length > maxBytes) throw new Error(`answer larger than ${maxBytes} bytes`);
  return body;
};

/**
 * OCSP and CRL over HTTP with fetch: each request within `timeoutMs`, no redirects, HTTP 2xx only,
 * answers of at most `maxBytes` (5 MiB unless set).
 */
export const createHttpRevocationFetcher = (settings: RevocationSettings): RevocationFetcher => {
  const maxBytes = settings.maxBytes ?? 5 * 1024 * 1024;
  return {
    fetchOcsp: (url, request) =>
      fetchBytes(
        url,
        { method: 'POST', headers: { 'content-type': 'application/ocsp-request' }, body: request },
        settings.timeoutMs,
        maxBytes,
      ),
    fetchCrl: (url) => fetchBytes(url, { method: 'GET' }, settings.timeoutMs, maxBytes),
  };
};

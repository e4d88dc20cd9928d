import { createHash } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import type { z } from 'zod';
import type { ZSandboxSignResult } from '../endpoints/sandbox.schemas';

/** Magic document URLs that produce the outcomes other than success, like test card numbers. */
export const SANDBOX_MAGIC_URLS = {
  declined: 'https://sandbox.example/declined.pdf',
  invalid: 'https://sandbox.example/invalid.pdf',
  tooLarge: 'https://sandbox.example/too-large.pdf',
  unavailable: 'https://sandbox.example/unavailable.pdf',
} as const;

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Sandbox signing times fall in 2026, derived from the URL. */
const EPOCH = Date.parse('2026-01-01T00:00:00Z');
const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** The URL as the sandbox sees it: scheme and host in lower case, no default port, no fragment, sorted query. */
export const normaliseDocumentUrl = (raw: string): string => {
  const url = new URL(raw.trim());
  url.hash = '';
  url.searchParams.sort();
  return url.toString();
};

/** What the sandbox answers: its public schema's type, so the two cannot differ. */
export type SandboxSigning = z.output<typeof ZSandboxSignResult>;

const fileNameOf = (url: URL): string => {
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  name = name.replace(/[\p{Cc}\p{Cf}]/gu, '').slice(0, 200) || 'document';
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
};

/**
 * Mock signing data for a document URL: a pure function of the normalised URL (the same URL always
 * gives the same answer, byte for byte), which is never fetched. Magic URLs give the other outcomes.
 */
export const sandboxSign = (documentUrl: string): SandboxSigning => {
  const normalised = normaliseDocumentUrl(documentUrl);
  if (normalised === SANDBOX_MAGIC_URLS.invalid) {
    throw new ServiceError(
      'invalid_argument',
      'document_url: the document is not a PDF that can be signed (sandbox magic URL)',
      'document_url',
    );
  }
  if (normalised === SANDBOX_MAGIC_URLS.tooLarge) {
    throw new ServiceError(
      'too_large',
      'document_url: the document exceeds the 25 MB limit (sandbox magic URL)',
    );
  }
  if (normalised === SANDBOX_MAGIC_URLS.unavailable) {
    throw new ServiceError('unavailable', 'The signing service is unavailable; retry (sandbox magic URL)');
  }
  const digest = createHash('sha256').update(`esign-sandbox:${normalised}`).digest();
  const group = (offset: number) =>
    Array.from({ length: 4 }, (_, i) => ALPHABET[(digest[offset + i] ?? 0) % ALPHABET.length]).join('');
  const at = new Date(EPOCH + (digest.readUInt32BE(16) % YEAR_SECONDS) * 1000).toISOString();
  const declined = normalised === SANDBOX_MAGIC_URLS.declined;
  return {
    sandbox: true,
    status: declined ? 'declined' : 'signed',
    auditId: `SBX-${group(0)}-${group(4)}-${group(8)}`,
    documentUrl: normalised,
    fileName: fileNameOf(new URL(normalised)),
    fileHash: `sha256:${createHash('sha256').update(`esign-sandbox-document:${normalised}`).digest('hex')}`,
    pageCount: 1 + ((digest[20] ?? 0) % 12),
    signerName: 'Sandbox Signer',
    signerEmail: 'signer@sandbox.example',
    signedAt: declined ? null : at,
    declinedAt: declined ? at : null,
    declineReason: declined ? 'The signer declined (sandbox magic URL)' : null,
  };
};

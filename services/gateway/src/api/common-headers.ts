import { z } from 'zod';
import type { HeaderDeclaration } from './operation';

/** Headers of every answer that is a stored signed PDF (a signing's, a replay's, a download's). */
export const SIGNED_PDF_FILE_HEADERS: Record<string, HeaderDeclaration> = {
  'Content-Disposition': {
    description: 'attachment; filename="<name>-signed.pdf" (plus filename* for non-ASCII names)',
    schema: z.string(),
  },
  'X-Audit-Id': {
    description: 'The audit ID, also embedded in the PDF',
    schema: z.string().meta({ example: 'ESG-7KQ2-M4XP-9D3F' }),
  },
  'X-Signed-At': {
    description: 'When it was signed, ISO 8601 UTC',
    schema: z.string().meta({ format: 'date-time' }),
  },
  'X-File-Hash': {
    description: 'sha256: of exactly the returned bytes (the fileHash of the document record)',
    schema: z.string(),
  },
};

/** Headers of a signed PDF response (sign, and the same document again on a replay). */
export const SIGNED_PDF_HEADERS: Record<string, HeaderDeclaration> = {
  ...SIGNED_PDF_FILE_HEADERS,
  'Idempotent-Replayed': {
    description: 'true when an earlier request with the same Idempotency-Key produced this document',
    schema: z.literal('true'),
    required: false,
  },
};

/** Rate-limit headers (draft IETF RateLimit fields) on every answer of a rate-limited operation. */
export const RATE_LIMIT_HEADERS: Record<string, HeaderDeclaration> = {
  'RateLimit-Limit': { description: 'Requests allowed per minute', schema: z.string() },
  'RateLimit-Remaining': { description: 'Requests left in this minute', schema: z.string() },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: z.string() },
};

/** On 429 and 503: when to try again. */
export const RETRY_AFTER_HEADER: Record<string, HeaderDeclaration> = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: z.string() },
};

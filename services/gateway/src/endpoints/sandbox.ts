import { defineOperation } from '../api/operation';
import { ZSandboxSignRequest, ZSandboxSignResult } from './sandbox.schemas';
import { SANDBOX_MAGIC_URLS, sandboxSign } from '../operations/sandbox-sign';

export const sandboxSignOperation = defineOperation({
  id: 'sandboxSign',
  method: 'post',
  path: '/api/v1/sandbox/sign',
  tag: 'Sandbox',
  summary: 'Mock signing (sandbox)',
  description: `Deterministic mock signing data for a document URL, with the public sandbox token instead of a live key. The URL is never fetched, nothing is stored or counted against a plan, and the same URL always gives the same answer. Magic URLs give the other outcomes: ${SANDBOX_MAGIC_URLS.declined} (declined), ${SANDBOX_MAGIC_URLS.invalid} (400), ${SANDBOX_MAGIC_URLS.tooLarge} (413), ${SANDBOX_MAGIC_URLS.unavailable} (503). Rate-limited per client IP.`,
  auth: 'sandbox',
  request: {
    json: ZSandboxSignRequest,
    example: { document_url: 'https://example.com/contract.pdf' },
  },
  responses: {
    200: {
      description: 'Mock signing data',
      json: ZSandboxSignResult,
      example: sandboxSign('https://example.com/contract.pdf'),
    },
  },
  errors: ['invalid_argument', 'too_large', 'unavailable'],
  handle: ({ body }) => Promise.resolve({ status: 200, json: sandboxSign(body.document_url) }),
});

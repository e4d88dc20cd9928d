import { TemplateList } from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { attachment } from '../http/content-disposition';
import { generateTemplate } from '../operations/generate-template';
import { ZGenerateTemplateRequest, ZTemplateList } from './templates.schemas';

/** Header that tells where each signature block is, in the format `POST /api/v1/sign` takes as `positions`. */
export const SIGNATURE_POSITIONS_HEADER = 'X-Signature-Positions';

/** JSON with every non-ASCII character escaped, so that it is a valid header value. */
export const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

export const listTemplatesOperation = defineOperation({
  id: 'listTemplates',
  method: 'get',
  path: '/api/v1/templates',
  tag: 'Templates',
  summary: 'List templates',
  description: 'Every contract template with the fields it fills (see docs/templates.md).',
  auth: 'apiKey',
  request: {},
  responses: { 200: { description: 'The templates', json: ZTemplateList } },
  errors: ['unavailable', 'internal'],
  async handle(_input, deps) {
    return { status: 200, json: await deps.bus.request(TemplateList, {}) };
  },
});

export const generateTemplateOperation = defineOperation({
  id: 'generateTemplate',
  method: 'post',
  path: '/api/v1/templates/generate',
  tag: 'Templates',
  summary: 'Generate a filled PDF from a template',
  description:
    'Fill a template; the answer is the PDF, which can be the file of a sign request. X-Signature-Positions says where each party signs, in the format POST /api/v1/sign takes as positions.',
  auth: 'apiKey',
  request: {
    json: ZGenerateTemplateRequest,
    example: {
      slug: 'nda',
      fields: { partyA: 'Acme Ltd', partyB: 'Ada Lovelace', effectiveDate: '2026-12-01' },
    },
  },
  responses: {
    200: {
      description: 'The filled PDF',
      binary: 'application/pdf',
      headers: {
        'Content-Disposition': { description: 'attachment with the file name', schema: z.string() },
        'X-Template-Slug': { description: 'The template filled', schema: z.string() },
        [SIGNATURE_POSITIONS_HEADER]: {
          description: 'JSON array of {x, y, page, width}: where each signature block is',
          schema: z.string(),
        },
        'X-Page-Count': { description: 'Pages of the PDF', schema: z.string() },
      },
    },
  },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle({ body, caller }, deps) {
    const generated = await generateTemplate(deps.templates, {
      accountId: caller.accountId,
      slug: body.slug,
      fields: body.fields,
    });
    return {
      status: 200,
      stream: generated.stream,
      contentType: 'application/pdf',
      size: generated.size,
      headers: {
        'Content-Disposition': attachment(generated.fileName),
        'X-Template-Slug': body.slug,
        [SIGNATURE_POSITIONS_HEADER]: asciiJson(generated.positions),
        'X-Page-Count': String(generated.pageCount),
        'Cache-Control': 'no-store',
      },
      // The PDF was rendered for this response only; once it is sent (or the client is gone) it goes.
      onClose: generated.discard,
    };
  },
});

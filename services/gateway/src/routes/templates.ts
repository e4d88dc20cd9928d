import express, { type Router } from 'express';
import { ServiceError, TemplateGenerate, TemplateList, type TPosition } from '@esign/contracts';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { principalOf } from '../http/auth';
import { parseOrThrow } from '../http/validation';
import { attachment } from './sign';

/** Header that tells where each signature block is, in the format `POST /api/v1/sign` takes as `positions`. */
export const SIGNATURE_POSITIONS_HEADER = 'X-Signature-Positions';

/** Values are strings; plain numbers are accepted and sent on as their decimal string. */
const ZFieldValue = z.union([z.string(), z.number().transform((n) => String(n))], {
  error: 'must be a string (dates, amounts and line items are sent as strings too)',
});

export const ZGenerateTemplateBody = z.object({
  slug: z
    .string({ error: 'slug is required: one of the template slugs listed by GET /api/v1/templates' })
    .min(1, 'slug is required: one of the template slugs listed by GET /api/v1/templates')
    .max(100, 'slug must be at most 100 characters'),
  fields: z.record(z.string(), ZFieldValue, {
    error: 'fields is required: an object that maps field names to string values',
  }),
});

/** JSON with every non-ASCII character escaped, so that it is a valid header value. */
export const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** GET /api/v1/templates and POST /api/v1/templates/generate (Bearer key). */
export const templatesRouter = (deps: GatewayDeps): Router => {
  const router = express.Router();

  router.get('/templates', async (_req, res) => {
    res.json(await deps.bus.request(TemplateList, {}));
  });

  router.post(
    '/templates/generate',
    (req, _res, next) => {
      if (!req.is('application/json')) {
        throw new ServiceError('invalid_argument', 'Content-Type must be application/json', 'body');
      }
      next();
    },
    express.json({ limit: '256kb' }),
    async (req, res) => {
      const raw: unknown = req.body;
      if (!isPlainObject(raw)) {
        throw new ServiceError(
          'invalid_argument',
          'request body must be a JSON object: { "slug": "...", "fields": { "name": "value" } }',
          'body',
        );
      }
      const body = parseOrThrow(ZGenerateTemplateBody, raw);
      const generated = await deps.bus.request(TemplateGenerate, {
        accountId: principalOf(res).accountId,
        slug: body.slug,
        fields: body.fields,
      });
      const positions: TPosition[] = generated.positions;
      const stream = await deps.blob.get(generated.objectKey);
      res.status(200).set({
        'Content-Type': 'application/pdf',
        'Content-Length': String(generated.size),
        'Content-Disposition': attachment(generated.fileName),
        'X-Template-Slug': body.slug,
        [SIGNATURE_POSITIONS_HEADER]: asciiJson(positions),
        'X-Page-Count': String(generated.pageCount),
        'Cache-Control': 'no-store',
      });
      // The PDF was rendered for this response only; once it is sent (or the client is gone) it goes.
      res.on('close', () => {
        deps.blob.remove(generated.objectKey).catch((err: unknown) => {
          deps.logger.warn('could not remove a generated PDF', { objectKey: generated.objectKey, err });
        });
      });
      stream.on('error', (err) => {
        deps.logger.error('streaming the generated PDF failed', { objectKey: generated.objectKey, err });
        res.destroy(err);
      });
      stream.pipe(res);
    },
  );

  return router;
};

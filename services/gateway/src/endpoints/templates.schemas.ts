import { z } from 'zod';
import { ZTemplateFieldType } from '@esign/contracts';
import { named } from '../api/named';

export const ZPublicTemplate = named(
  'Template',
  'A contract template and the fields it fills.',
  z.object({
    slug: z.string().meta({ example: 'nda' }),
    name: z.string(),
    description: z.string(),
    fields: z.array(
      z.object({
        name: z.string(),
        label: z.string(),
        type: ZTemplateFieldType,
        required: z.boolean(),
      }),
    ),
  }),
);

export const ZTemplateList = named(
  'TemplateList',
  'Every template.',
  z.object({ templates: z.array(ZPublicTemplate) }),
);

export const ZGenerateTemplateRequest = named(
  'GenerateTemplateRequest',
  'Which template to fill, and with what.',
  z.object({
    slug: z
      .string({ error: 'slug is required: one of the template slugs listed by GET /api/v1/templates' })
      .min(1, 'slug is required: one of the template slugs listed by GET /api/v1/templates')
      .max(100, 'slug must be at most 100 characters'),
    fields: z.record(
      z.string(),
      // Values are strings; plain numbers are accepted and sent on as their decimal string.
      z.union([z.string(), z.number().transform((n) => String(n))], {
        error: 'must be a string (dates, amounts and line items are sent as strings too)',
      }),
      { error: 'fields is required: an object that maps field names to string values' },
    ),
  }),
);

import { z } from 'zod';
import { defineRequest } from './define';
import { ZPosition } from './common';

/**
 * Kinds of template fields. Every value travels as a string; the type says which strings are valid:
 * - `text`: any printable text (newlines and tabs become spaces)
 * - `date`: a real calendar date, `YYYY-MM-DD`
 * - `amount`: a non-negative decimal with at most two decimals (`1250`, `1250.50`)
 * - `integer`: a whole number, bounds per field
 * - `percent`: a decimal from 0 to 100
 * - `currency`: a three-letter ISO 4217 code (`USD`, `EUR`)
 * - `email`: an email address
 * - `lineItems`: a JSON-encoded array of `{ description, quantity, unitPrice }`
 */
export const ZTemplateFieldType = z.enum([
  'text',
  'date',
  'amount',
  'integer',
  'percent',
  'currency',
  'email',
  'lineItems',
]);
export type TTemplateFieldType = z.infer<typeof ZTemplateFieldType>;

/** One fillable field of a template. */
export const ZTemplateField = z.object({
  name: z.string(),
  label: z.string(),
  type: ZTemplateFieldType,
  required: z.boolean(),
});
export type TTemplateField = z.infer<typeof ZTemplateField>;

/** A template as the list endpoint shows it. */
export const ZTemplateSummary = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  fields: z.array(ZTemplateField),
});
export type TTemplateSummary = z.infer<typeof ZTemplateSummary>;

/** Every template the service can fill, in a stable order. */
export const TemplateList = defineRequest(
  'template.list',
  z.object({}),
  z.object({ templates: z.array(ZTemplateSummary) }),
);

export const ZGenerateTemplateRequest = z.object({
  accountId: z.uuid(),
  slug: z.string().min(1).max(100),
  /** Field name -> filled value; the template decides which names and values are valid. */
  fields: z.record(z.string(), z.string()),
});
export type TGenerateTemplateRequest = z.infer<typeof ZGenerateTemplateRequest>;

export const ZGenerateTemplateReply = z.object({
  /** Object key of the rendered PDF (`generated/<accountId>/<uuid>.pdf`); bytes never cross the bus. */
  objectKey: z.string(),
  /** File name for Content-Disposition, ending in .pdf. */
  fileName: z.string(),
  size: z.number().int().positive(),
  pageCount: z.number().int().positive(),
  /** Where each signature block's signature goes, in the format `POST /api/v1/sign` takes. */
  positions: z.array(ZPosition),
});
export type TGenerateTemplateReply = z.infer<typeof ZGenerateTemplateReply>;

/**
 * Fill a template and store the PDF. `not_found` (field `slug`) for an unknown template;
 * `invalid_argument` (field `fields.<name>`) for a missing, malformed or unknown field.
 */
export const TemplateGenerate = defineRequest(
  'template.generate',
  ZGenerateTemplateRequest,
  ZGenerateTemplateReply,
);

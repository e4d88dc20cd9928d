import { z } from 'zod';

/** Prefix of every audit ID this service issues. */
export const AUDIT_ID_PREFIX = 'ESG';

/**
 * `<PREFIX>-XXXX-XXXX-XXXX`: a short prefix, then three groups of four uppercase alphanumerics. New ones
 * are made by `newAuditId` in `@esign/ids` (Node only), so that this library runs in a browser too.
 */
export const ZAuditId = z
  .string()
  .regex(/^[A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/, 'not an audit ID');
export type TAuditId = z.infer<typeof ZAuditId>;

/** `sha256:` followed by 64 lowercase hex digits. */
export const ZFileHash = z.string().regex(/^sha256:[0-9a-f]{64}$/);

export const ZPlan = z.enum(['free', 'pro', 'business']);
export type TPlan = z.infer<typeof ZPlan>;

/**
 * Where a signature goes. Percentages of the page as a person sees it (after /Rotate, inside the
 * crop box), origin top-left. (x, y) place the top-left corner of the signature box.
 */
const percent = (name: string, min: number, max: number) => {
  const error = `${name} must be a number from ${min} to ${max}`;
  return z.number({ error }).min(min, error).max(max, error);
};
export const ZPosition = z.object({
  x: percent('x', 0, 100),
  y: percent('y', 0, 100),
  page: z
    .number({ error: 'page must be a zero-based page index' })
    .int('page must be a zero-based page index')
    .min(0, 'page must be a zero-based page index'),
  width: percent('width', 10, 60),
});
export type TPosition = z.infer<typeof ZPosition>;

export const ZIsoTimestamp = z.iso.datetime({ offset: true });

export const ZHexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1e3a8a');

/** One entry of a document's audit log. `hash` chains each entry to the one before it. */
export const ZAuditEvent = z.object({
  event: z.string(),
  timestamp: ZIsoTimestamp,
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
});
export type TAuditEvent = z.infer<typeof ZAuditEvent>;

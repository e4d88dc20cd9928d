import {
  ZHexColor,
  ZPosition,
  MAX_SIGNATURE_IMAGE_BYTES,
  PLAN_LIMITS,
  type TDocumentKind,
} from '@esign/contracts';
import { z } from 'zod';
import type { FileDeclaration } from '../api/operation';
import type { TGatewayConfig } from '../config';

/**
 * The form fields of POST /api/v1/sign. The handler validates with this schema and GET /api/v1/sign
 * describes it, so the reference can never drift from what is enforced.
 */

// Form values arrive as strings; empty fields are dropped before validation so defaults apply.
const number = (name: string, min: number, max: number, int = false) => {
  const error = `${name} must be ${int ? 'an integer' : 'a number'} from ${min} to ${max}`;
  const base = int ? z.number({ error }).int(error) : z.number({ error });
  return z.preprocess(
    (v) => (typeof v === 'string' ? Number(v.trim()) : v),
    base.min(min, error).max(max, error),
  );
};

const MAX_PAGE_INDEX = 100_000;

/** True when a text has something a person can see (not only spaces, zero-width or format characters). */
export const hasVisibleText = (v: string) => /[^\s\p{Cf}\p{Zs}\p{Cc}]/u.test(v);

/** `positions` as a form field: a JSON array of {x, y, page, width} (sign and send). */
export const positionsJson = z.preprocess(
  (v, ctx) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'positions must be a JSON array of {x, y, page, width}' });
      return z.NEVER;
    }
  },
  z
    .array(ZPosition, { error: 'positions must be a JSON array of {x, y, page, width}' })
    .min(1, 'positions must hold at least one position')
    .max(50, 'positions may hold at most 50 positions'),
);

export const SIGNATURE_MODES = ['draw', 'type', 'upload'] as const;

export const ZSignFields = z
  .object({
    signerName: z
      .string({ error: 'signerName is required' })
      .trim()
      .min(1, 'signerName is required')
      .max(200, 'signerName must be at most 200 characters')
      .refine(hasVisibleText, 'signerName is required (it has no visible characters)')
      .meta({ description: "Signer's full name; embedded in the audit trail" }),
    signerEmail: z
      .email({ error: 'signerEmail must be an email address' })
      .max(254)
      .meta({ description: "Signer's email; embedded in the audit trail" }),
    mode: z
      .enum(SIGNATURE_MODES, { error: 'mode must be draw, type or upload' })
      .default('draw')
      .meta({ description: 'draw and upload stamp signatureData; type renders typedName' }),
    signatureData: z
      .string()
      .max(Math.ceil(MAX_SIGNATURE_IMAGE_BYTES / 3) * 4 + 64, 'signatureData must be at most 512 KiB')
      .optional()
      .meta({
        description:
          'Required in draw and upload mode: base64 data URI of a PNG or JPEG signature image (data:image/png;base64,...), at most 512 KiB',
      }),
    typedName: z
      .string()
      .trim()
      .min(1, 'typedName must not be empty')
      .max(200, 'typedName must be at most 200 characters')
      .refine(hasVisibleText, 'typedName must have visible characters')
      .optional()
      .meta({ description: 'Required when mode=type: the text rendered as the signature, in any script' }),
    sigColor: ZHexColor.default('#1e3a8a').meta({ description: 'Hex colour of a typed signature' }),
    x: number('x', 0, 100)
      .default(50)
      .meta({ description: 'Percent from the left edge of the page to the left edge of the signature' }),
    y: number('y', 0, 100)
      .default(85)
      .meta({ description: 'Percent from the top edge of the page to the top edge of the signature' }),
    page: number('page', 0, MAX_PAGE_INDEX, true).default(0).meta({ description: 'Zero-based page index' }),
    width: number('width', 10, 60)
      .default(25)
      .meta({ description: 'Signature width as percent of page width' }),
    positions: positionsJson.optional().meta({
      description:
        'JSON array of {x, y, page, width} (same rules as the single fields); when present, x, y, page and width are ignored',
    }),
  })
  .superRefine((fields, ctx) => {
    if ((fields.mode === 'draw' || fields.mode === 'upload') && !fields.signatureData) {
      ctx.addIssue({
        code: 'custom',
        path: ['signatureData'],
        message: `signatureData is required in ${fields.mode} mode`,
      });
    }
    if (fields.mode === 'type' && !fields.typedName) {
      ctx.addIssue({ code: 'custom', path: ['typedName'], message: 'typedName is required when mode=type' });
    }
  });
export type TSignFields = z.infer<typeof ZSignFields>;

/** Names of the form fields the schema knows (anything else in a request is ignored). */
export const SIGN_FIELD_NAMES = Object.keys(ZSignFields.shape);

/**
 * The `file` part of a multipart request that makes a document (sign, send): at most the
 * configured size, and at most the caller's plan allows, refused while it streams (the caller's key
 * or session is known before the upload: a Free account's 10 MiB). Hashed while it streams when
 * the request has an Idempotency-Key: a retry is recognised by its fingerprint, of which the file's
 * SHA-256 is part.
 */
export const planLimitedFile = (options: {
  readonly description: string;
  readonly accept: readonly TDocumentKind[];
  readonly maxBytes: (config: TGatewayConfig) => number;
}): FileDeclaration => ({
  name: 'file',
  description: options.description,
  accept: options.accept,
  maxBytes: (config, caller) =>
    Math.min(
      options.maxBytes(config),
      caller ? PLAN_LIMITS[caller.plan].maxFileBytes : options.maxBytes(config),
    ),
  hash: (headers) => headers['Idempotency-Key'] !== undefined,
});

import {
  MAX_DECLINE_REASON_LENGTH,
  MAX_SIGNATURE_IMAGE_BYTES,
  ServiceError,
  ZHexColor,
  type TSignature,
} from '@esign/contracts';
import { z } from 'zod';

// What the recipient's pages (send's `/s/<token>`, an envelope's `/e/<token>`) submit in common: a
// drawn or typed signature (or initials) and a decline's reason, with the messages the pages show.

/** Text a person would see: not only spaces, format or control characters. */
export const hasVisible = (v: string): boolean => /[^\s\p{Cf}\p{Zs}\p{Cc}]/u.test(v);

export const EMPTY_SIGNATURE = 'Please draw or type your signature first.';

/** A drawn (PNG, base64) or typed signature as the page's pad gives it; `what` names it in messages. */
export const ZPageSignature = (options: { empty: string; what: 'signature' | 'initials' }) =>
  z.discriminatedUnion(
    'mode',
    [
      z.object({
        mode: z.literal('draw'),
        imageBase64: z
          .string({ error: options.empty })
          .min(1, options.empty)
          .max(Math.ceil(MAX_SIGNATURE_IMAGE_BYTES / 3) * 4, `The drawn ${options.what} is too large.`),
      }),
      z.object({
        mode: z.literal('type'),
        typedName: z
          .string({ error: options.empty })
          .trim()
          .max(200, `The typed ${options.what} must be at most 200 characters.`)
          .refine(hasVisible, options.empty),
        color: ZHexColor,
      }),
    ],
    { error: options.empty },
  );

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The signature to sign with: a drawn one must be a PNG (the page's canvas makes one; `invalid_argument`
 * on `field` otherwise), a typed one keeps its colour in lower case.
 */
export const pageSignature = (
  given: z.infer<ReturnType<typeof ZPageSignature>>,
  field: 'signature' | 'initials',
): TSignature => {
  if (given.mode === 'draw') {
    const bytes = Buffer.from(given.imageBase64, 'base64');
    if (bytes.length < PNG_MAGIC.length || !bytes.subarray(0, 8).equals(PNG_MAGIC)) {
      throw new ServiceError('invalid_argument', `The drawn ${field} must be a PNG image.`, field);
    }
    return { mode: 'draw', imageBase64: bytes.toString('base64') };
  }
  return { mode: 'type', typedName: given.typedName, color: given.color.toLowerCase() };
};

const REASON_REQUIRED = 'Please tell the sender why you decline (a reason is required).';

/** A decline's body: the reason, required and shown to the sender. */
export const ZPageDecline = z.object({
  reason: z
    .string({ error: REASON_REQUIRED })
    .trim()
    .max(MAX_DECLINE_REASON_LENGTH, `The reason must be at most ${MAX_DECLINE_REASON_LENGTH} characters.`)
    .refine(hasVisible, REASON_REQUIRED),
});

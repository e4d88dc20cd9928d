import { z } from 'zod';

/**
 * The bodies of the public API, each with its own schema: the gateway answers through these (extra
 * fields of internal messages are stripped), and the OpenAPI document, the Postman collection and the
 * SDK's types are generated from them. Changing one is changing the public API. Each resource's
 * schemas sit beside its endpoints (`endpoints/<resource>.schemas.ts`) and are registered here by
 * `named()` (`api/named.ts`); the OpenAPI document lists them in the order they were registered.
 */
export const publicSchemas = z.registry<{ id: string; description?: string }>();

/** `Idempotency-Key`, as a header declaration of the operations that take one. */
const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1-255 visible ASCII characters (a UUID, for example)';
export const ZIdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1, IDEMPOTENCY_KEY_RULE)
    .max(255, IDEMPOTENCY_KEY_RULE)
    .regex(/^[\x21-\x7e]+$/, IDEMPOTENCY_KEY_RULE)
    .optional()
    .meta({
      description:
        'Optional, 1-255 visible ASCII characters (a UUID is typical). A retry of the same request with the same key answers the same result (Idempotent-Replayed: true) instead of doing it again; the same key with a different request is a 409.',
    }),
});

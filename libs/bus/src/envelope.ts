import { validationFailure, ZErrorBody, type ServiceError, type TErrorBody } from '@esign/contracts';
import { z } from 'zod';

/** Every reply on the bus: data on success, a coded error otherwise. */
export const ZEnvelope = z.union([
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: ZErrorBody }),
]);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));
export const decodeJson = (data: Uint8Array): unknown => JSON.parse(decoder.decode(data));

export const okEnvelope = (data: unknown): Uint8Array => encodeJson({ ok: true, data });
export const errorEnvelope = (error: TErrorBody): Uint8Array => encodeJson({ ok: false, error });

/** A zod failure as an `invalid_argument` naming the first field at fault. */
export const invalidArgument = (error: z.ZodError): ServiceError => validationFailure(error);

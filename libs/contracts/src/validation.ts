import type { z } from 'zod';
import { ServiceError } from './errors';

/** `positions.0.width` as a person writes it: `positions[0].width`. */
export const fieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );

/**
 * The one way a validation failure becomes an error text: `invalid_argument` naming the first field at
 * fault, the message starting with that field (`positions[1].width: …`). Messages of our own schemas
 * that already start with their field's name are kept as they are.
 */
export const validationFailure = (error: z.ZodError, fallbackField = 'request'): ServiceError => {
  const issue = error.issues[0];
  const path = issue?.path ?? [];
  const field = fieldPath(path);
  const message = issue?.message ?? 'invalid';
  const named = field && message.startsWith(field) ? message : `${field || fallbackField}: ${message}`;
  return new ServiceError('invalid_argument', named, field || undefined);
};

/** Parse with a schema or throw `validationFailure`. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailure(result.error);
};

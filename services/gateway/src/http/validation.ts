import { ServiceError } from '@esign/contracts';
import type { z } from 'zod';

/** `positions.0.width` as a person writes it: `positions[0].width`. */
export const fieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, part) =>
      typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part),
    '',
  );

/** Parse with a schema or throw `invalid_argument` naming the first field at fault. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, value: unknown): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const field = fieldPath(path);
  const message = issue?.message ?? 'invalid request';
  // Our top-level messages already start with their field's name; any other gets the path in front.
  const named =
    path.length === 1 && message.startsWith(field) ? message : field ? `${field}: ${message}` : message;
  throw new ServiceError('invalid_argument', named, field);
};

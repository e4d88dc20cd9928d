import { ServiceError } from '@esign/contracts';
import type { z } from 'zod';

/** `positions.0.width` as a person writes it: `positions[0].width`. */
export const fieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)),
    '',
  );

/** Parse with a schema or throw `invalid_argument` naming the first field at fault. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, value: unknown): z.infer<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue ? fieldPath(issue.path) : '';
  const message = issue?.message ?? 'invalid request';
  // Messages of our schemas already name their field; generic ones get it prefixed.
  const named = field && !message.startsWith(field.split(/[.[]/).pop() ?? field) ? `${field}: ${message}` : message;
  throw new ServiceError('invalid_argument', field.startsWith('positions[') ? `${fieldPath(issue?.path.slice(0, 2) ?? [])}: ${message}` : named, field);
};

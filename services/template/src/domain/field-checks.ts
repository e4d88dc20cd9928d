import { ServiceError } from '@esign/contracts';
import type { FilledFields } from './filled-fields';

/**
 * Dates that must come in order (a lease ends after it starts): `invalid_argument` when `later` is
 * before `earlier` (or the same day, when `strict`), on the field named by `blame` (`later` unless
 * said otherwise). Skipped when either is not filled.
 */
export const checkDateOrder = (
  fields: FilledFields,
  options: { earlier: string; later: string; strict: boolean; blame?: 'earlier' | 'later' },
): void => {
  const earlier = fields.opt(options.earlier);
  const later = fields.opt(options.later);
  if (!earlier || !later) return;
  // ISO dates compare correctly as strings.
  if (later > earlier || (!options.strict && later === earlier)) return;
  const message =
    options.blame === 'earlier'
      ? `fields.${options.earlier} must be ${options.strict ? 'before' : 'on or before'} fields.${options.later} (${later})`
      : `fields.${options.later} must be ${options.strict ? 'after' : 'on or after'} fields.${options.earlier} (${earlier})`;
  throw new ServiceError(
    'invalid_argument',
    message,
    `fields.${options.blame === 'earlier' ? options.earlier : options.later}`,
  );
};

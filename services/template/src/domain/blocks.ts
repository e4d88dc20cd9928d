import type { Inline } from './inline';
import type { Block, ClauseBody, FieldSpec } from './template';

/** Helpers that keep template files close to the text they hold. */

/** A numbered clause. Parts that are `false` or `undefined` (conditional text) are left out. */
export const clause = (heading: string, ...body: (ClauseBody | false | undefined)[]): Block => ({
  kind: 'clause',
  heading,
  body: body.filter((b): b is ClauseBody => Boolean(b)),
});

/** A lettered list inside a clause: (a), (b), (c). */
export const list = (...entries: Inline[]): ClauseBody => ({ list: entries });

/** An unnumbered paragraph (a recital, a preamble). */
export const paragraph = (text: Inline): Block => ({ kind: 'paragraph', text });

/** Label/value rows (the parties and dates at the head of an invoice). */
export const details = (...rows: ({ label: string; value: Inline } | false | undefined)[]): Block => ({
  kind: 'details',
  rows: rows.filter((r): r is { label: string; value: Inline } => Boolean(r)),
});

/** Field declarations. */
export const field = (
  name: string,
  label: string,
  type: FieldSpec['type'],
  required: boolean,
  bounds: { min?: number; max?: number } = {},
): FieldSpec => ({ name, label, type, required, ...bounds });

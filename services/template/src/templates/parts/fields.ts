import { field } from '../../domain/blocks';
import type { FilledFields } from '../../domain/filled-fields';
import { DEFAULT_CURRENCY } from '../../domain/money';
import type { FieldSpec } from '../../domain/template';

/** Field declarations that several templates share, worded the same wherever they appear. */

/**
 * A party's fields: `<key>Name` (required), then `<key>Address` and `<key>Email` (optional).
 * Labels default to "<Role> (full legal name)", "<Role> address" and "<Role> email"; `address: false`
 * leaves the address out, `email: true` adds the email.
 */
export const partyFields = (
  key: string,
  role: string,
  options: { name?: string; address?: string | false; email?: boolean } = {},
): FieldSpec[] => [
  field(`${key}Name`, options.name ?? `${role} (full legal name)`, 'text', true),
  ...(options.address === false
    ? []
    : [field(`${key}Address`, options.address ?? `${role} address`, 'text', false)]),
  ...(options.email ? [field(`${key}Email`, `${role} email`, 'email', false)] : []),
];

/** The currency of every amount in the document; USD when empty (read it with `currencyOf`). */
export const currencyField = field('currency', 'Currency (ISO 4217 code, USD if empty)', 'currency', false);

/** The currency filled in, or the default. */
export const currencyOf = (fields: FilledFields): string => fields.opt('currency') ?? DEFAULT_CURRENCY;

/** Days a client has to pay an invoice (the text shows 30 when empty). */
export const paymentDaysField = field(
  'paymentDays',
  'Days the client has to pay an invoice (30 if empty)',
  'integer',
  false,
  { min: 0, max: 120 },
);

/** Days of notice, from one day to a year (the text shows 30 when empty). */
export const noticeDaysField = (label: string): FieldSpec =>
  field('noticeDays', label, 'integer', false, { min: 1, max: 365 });

/** The governing law; `courts` when the same place's courts decide disputes too. */
export const jurisdictionField = (options: { courts: boolean }): FieldSpec =>
  field(
    'jurisdiction',
    options.courts ? 'Governing law and courts (state or country)' : 'Governing law (state or country)',
    'text',
    false,
  );

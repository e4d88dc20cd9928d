import { plain, t, type Inline } from './inline';

/** One invoice line, validated and with its amount worked out. */
export interface LineItem {
  readonly description: string;
  /** Quantity without trailing zeros (`"2.5"`). */
  readonly quantity: string;
  /** Unit price with two decimals (`"85.00"`). */
  readonly unitPrice: string;
  /** Quantity times unit price, rounded half up to the cent, with two decimals. */
  readonly amount: string;
  readonly amountCents: bigint;
}

/**
 * The validated values of one request, normalised (trimmed text, amounts with two decimals,
 * currency codes in capitals). Template text reads them through here.
 */
export interface FilledFields {
  /** A required field's value. */
  req(name: string): string;
  /** An optional field's value, or undefined when it was not filled. */
  opt(name: string): string | undefined;
  /** A filled value (drawn as filled in), or the template's default wording when it is empty. */
  shown(name: string, fallback: string): Inline;
  /** The parsed lines of a `lineItems` field (empty when not filled). */
  items(name: string): readonly LineItem[];
  /** Every filled value by field name (line items as sent). */
  readonly values: Readonly<Record<string, string>>;
}

export const createFilledFields = (
  values: Readonly<Record<string, string>>,
  lineItems: ReadonlyMap<string, readonly LineItem[]> = new Map(),
): FilledFields => ({
  values,
  req(name) {
    const value = values[name];
    // Validation checks required fields first; reaching here is a bug in a template.
    if (value === undefined) throw new Error(`template read required field ${name}, which is not filled`);
    return value;
  },
  opt: (name) => values[name],
  shown(name, fallback) {
    const value = values[name];
    return value === undefined ? plain(fallback) : t`${value}`;
  },
  items: (name) => lineItems.get(name) ?? [],
});

/**
 * Exact decimal arithmetic for amounts, quantities and rates (integers of hundredths and
 * thousandths), so that an invoice adds up to the cent.
 */

export const AMOUNT_PATTERN = /^\d{1,13}(\.\d{1,2})?$/;
export const QUANTITY_PATTERN = /^\d{1,9}(\.\d{1,3})?$/;
export const PERCENT_PATTERN = /^\d{1,3}(\.\d{1,3})?$/;

const scaled = (value: string, decimals: number): bigint => {
  const [whole = '0', fraction = ''] = value.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
};

const format = (value: bigint, decimals: number, keep: number): string => {
  const unit = 10n ** BigInt(decimals);
  const whole = value / unit;
  let fraction = (value % unit).toString().padStart(decimals, '0');
  while (fraction.length > keep && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return fraction ? `${whole}.${fraction}` : whole.toString();
};

/** `"1250.5"` -> 125050n (cents). The value must match AMOUNT_PATTERN. */
export const toCents = (amount: string): bigint => scaled(amount, 2);

/** 125050n -> `"1250.50"`. */
export const formatCents = (cents: bigint): string => format(cents, 2, 2);

/** `"2.5"` -> 2500n (thousandths). The value must match QUANTITY_PATTERN or PERCENT_PATTERN. */
export const toMilli = (value: string): bigint => scaled(value, 3);

/** 2500n -> `"2.5"`: thousandths without trailing zeros. */
export const formatMilli = (milli: bigint): string => format(milli, 3, 0);

const roundDiv = (numerator: bigint, denominator: bigint): bigint =>
  (numerator * 2n + denominator) / (denominator * 2n);

/** Price times quantity, rounded half up to the cent. */
export const lineTotalCents = (unitCents: bigint, quantityMilli: bigint): bigint =>
  roundDiv(unitCents * quantityMilli, 1000n);

/** A percentage (in thousandths of a percent) of an amount, rounded half up to the cent. */
export const percentOfCents = (cents: bigint, percentMilli: bigint): bigint =>
  roundDiv(cents * percentMilli, 100_000n);

/** An amount with its currency code, as the documents print it: `USD 1250.00`. */
export const formatMoney = (currency: string, amount: string): string => `${currency} ${amount}`;

/** Currency of documents whose currency field was left empty. */
export const DEFAULT_CURRENCY = 'USD';

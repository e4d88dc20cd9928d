import { ServiceError } from '@esign/contracts';
import { createFilledFields, type FilledFields, type LineItem } from './filled-fields';
import {
  AMOUNT_PATTERN,
  PERCENT_PATTERN,
  QUANTITY_PATTERN,
  formatCents,
  formatMilli,
  lineTotalCents,
  toCents,
  toMilli,
} from './money';
import type { FieldSpec, TemplateDefinition } from './template';
import { describeCharacter } from './text-runs';

/** Longest value of a text field; longer values are refused rather than filling pages. */
export const MAX_TEXT_LENGTH = 5000;
export const MAX_LINE_ITEMS = 100;
const MAX_DESCRIPTION_LENGTH = 500;

export interface ValidateOptions {
  /** The first character no embedded font can draw, if any. */
  findUndrawable: (text: string) => string | undefined;
}

// Line breaks and tabs are allowed (they become spaces); other control characters are not.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CURRENCY = /^[A-Z]{3}$/;

const invalid = (field: string, message: string) =>
  new ServiceError('invalid_argument', message, `fields.${field}`);

/** A value quoted for an error message: short, on one line. */
const quote = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/** True when `YYYY-MM-DD` names a day that exists (no 2023-02-29, no 2024-13-01). */
export const isCalendarDate = (value: string): boolean => {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

const checkText = (name: string, value: string, label: string, options: ValidateOptions): string => {
  if (value.length > MAX_TEXT_LENGTH)
    throw invalid(name, `fields.${name} must be at most ${MAX_TEXT_LENGTH} characters`);
  const control = CONTROL.exec(value)?.[0];
  if (control)
    throw invalid(name, `fields.${name} contains a control character (${describeCharacter(control)})`);
  const undrawable = options.findUndrawable(value);
  if (undrawable !== undefined) {
    throw invalid(
      name,
      `fields.${name} (${label}) contains a character that cannot be printed: ${describeCharacter(undrawable)}`,
    );
  }
  return value;
};

const parseLineItems = (name: string, value: string, options: ValidateOptions): LineItem[] => {
  const format = `fields.${name} must be a JSON-encoded array of line items like [{"description":"Design work","quantity":2,"unitPrice":"450.00"}]`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid(name, format);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw invalid(name, format);
  if (parsed.length > MAX_LINE_ITEMS)
    throw invalid(name, `fields.${name} may hold at most ${MAX_LINE_ITEMS} line items`);
  return parsed.map((raw: unknown, i) => {
    const at = `fields.${name}[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw invalid(name, `${at} must be an object with description, quantity and unitPrice`);
    const item = raw as Record<string, unknown>;
    const unknown = Object.keys(item).find((k) => !['description', 'quantity', 'unitPrice'].includes(k));
    if (unknown)
      throw invalid(name, `${at}.${unknown} is not a line item field (description, quantity, unitPrice)`);
    const description = typeof item.description === 'string' ? item.description.trim() : '';
    if (!description) throw invalid(name, `${at}.description is required (text)`);
    if (description.length > MAX_DESCRIPTION_LENGTH) {
      throw invalid(name, `${at}.description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
    }
    checkText(name, description, `${at}.description`, options);
    const asString = (v: unknown) =>
      typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
    const quantity = asString(item.quantity);
    if (!QUANTITY_PATTERN.test(quantity) || toMilli(quantity) === 0n) {
      throw invalid(name, `${at}.quantity must be a positive number with at most three decimals`);
    }
    const unitPrice = asString(item.unitPrice);
    if (!AMOUNT_PATTERN.test(unitPrice)) {
      throw invalid(
        name,
        `${at}.unitPrice must be a non-negative amount with at most two decimals, like 450 or 450.00`,
      );
    }
    const amountCents = lineTotalCents(toCents(unitPrice), toMilli(quantity));
    return {
      description,
      quantity: formatMilli(toMilli(quantity)),
      unitPrice: formatCents(toCents(unitPrice)),
      amount: formatCents(amountCents),
      amountCents,
    };
  });
};

/** Check one value against its field's type; returns the normalised value. */
const checkValue = (
  spec: FieldSpec,
  value: string,
  options: ValidateOptions,
  items: Map<string, LineItem[]>,
): string => {
  const { name } = spec;
  switch (spec.type) {
    case 'text':
      return checkText(name, value, spec.label, options);
    case 'date':
      if (!isCalendarDate(value)) {
        throw invalid(
          name,
          `fields.${name} must be a real calendar date in the form YYYY-MM-DD (got ${quote(value)})`,
        );
      }
      return value;
    case 'amount':
      if (!AMOUNT_PATTERN.test(value)) {
        throw invalid(
          name,
          `fields.${name} must be a non-negative amount with at most two decimals, like 1250 or 1250.50 (got ${quote(value)})`,
        );
      }
      return formatCents(toCents(value));
    case 'integer': {
      const min = spec.min ?? 0;
      const max = spec.max ?? 1_000_000;
      if (!/^\d{1,7}$/.test(value) || Number(value) < min || Number(value) > max) {
        throw invalid(
          name,
          `fields.${name} must be a whole number from ${min} to ${max} (got ${quote(value)})`,
        );
      }
      return String(Number(value));
    }
    case 'percent':
      if (!PERCENT_PATTERN.test(value) || toMilli(value) > 100_000n) {
        throw invalid(
          name,
          `fields.${name} must be a percentage from 0 to 100, like 20 or 7.5 (got ${quote(value)})`,
        );
      }
      return formatMilli(toMilli(value));
    case 'currency': {
      const code = value.toUpperCase();
      if (!CURRENCY.test(code)) {
        throw invalid(
          name,
          `fields.${name} must be a three-letter ISO 4217 currency code, like USD or EUR (got ${quote(value)})`,
        );
      }
      return code;
    }
    case 'email':
      if (value.length > 254 || !EMAIL.test(value)) {
        throw invalid(name, `fields.${name} must be an email address (got ${quote(value)})`);
      }
      return checkText(name, value, spec.label, options);
    case 'lineItems':
      items.set(name, parseLineItems(name, value, options));
      return value;
  }
};

/**
 * Check a request's fields against a template: every name must be one of its fields, every required
 * field filled, every value of its field's type. Empty values count as not filled. The first problem
 * is reported as `invalid_argument` with the field `fields.<name>` and a message that names it.
 */
export const validateFields = (
  template: TemplateDefinition,
  raw: Readonly<Record<string, string>>,
  options: ValidateOptions,
): FilledFields => {
  const known = new Map(template.fields.map((f) => [f.name, f]));
  for (const name of Object.keys(raw)) {
    if (!known.has(name)) {
      const accepted = template.fields.map((f) => f.name).join(', ');
      throw new ServiceError(
        'invalid_argument',
        `fields.${name.slice(0, 60)} is not a field of template "${template.slug}" (accepted: ${accepted})`,
        `fields.${name.slice(0, 60)}`,
      );
    }
  }
  const values: Record<string, string> = {};
  const items = new Map<string, LineItem[]>();
  for (const spec of template.fields) {
    const value = Object.hasOwn(raw, spec.name) ? (raw[spec.name] ?? '').trim() : '';
    if (!value) {
      if (spec.required)
        throw invalid(spec.name, `fields.${spec.name} is required (${spec.label}, ${spec.type})`);
      continue;
    }
    values[spec.name] = checkValue(spec, value, options, items);
  }
  const filled = createFilledFields(values, items);
  template.check?.(filled);
  return filled;
};

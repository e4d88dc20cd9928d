import { describe, expect, it } from 'vitest';
import { toFileName } from './file-name';
import { formatCents, lineTotalCents, percentOfCents, toCents, toMilli } from './money';
import { isCalendarDate } from './validate-fields';

describe('isCalendarDate', () => {
  it.each(['2024-02-29', '2025-12-31', '0001-01-01', '9999-12-31'])('accepts %s', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });
  it.each([
    '2023-02-29',
    '2025-04-31',
    '2025-13-01',
    '2025-00-10',
    '2025-1-1',
    '20250101',
    '2025-01-01T00:00:00Z',
    '',
  ])('refuses %s', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });
});

describe('money', () => {
  it('keeps amounts exact to the cent', () => {
    expect(formatCents(toCents('0.1') + toCents('0.2'))).toBe('0.30');
    expect(formatCents(toCents('1234567890123.99'))).toBe('1234567890123.99');
    expect(formatCents(lineTotalCents(toCents('801.01'), toMilli('0.5')))).toBe('400.51');
    expect(formatCents(percentOfCents(toCents('460.48'), toMilli('7.5')))).toBe('34.54');
  });
});

describe('toFileName', () => {
  it('keeps letters and digits of any script and turns the rest into hyphens', () => {
    expect(toFileName('nda-Acme Widgets Ltd-2025-03-01')).toBe('nda-Acme-Widgets-Ltd-2025-03-01.pdf');
    expect(toFileName('nda-Иван Петров-2025-03-01')).toBe('nda-Иван-Петров-2025-03-01.pdf');
    expect(toFileName('nda-../../etc/passwd"; x=\r\n-2025')).toBe('nda-etc-passwd-x-2025.pdf');
    expect(toFileName('')).toBe('document.pdf');
    expect(toFileName('a'.repeat(500)).length).toBe(124);
  });
});

import { describe, expect, it } from 'vitest';
import { utcMonth } from './utc-month';

describe('utcMonth', () => {
  it('takes the month in UTC, whatever the local time zone says', () => {
    expect(utcMonth(new Date('2026-11-30T23:59:59.999Z'))).toEqual({
      firstDay: '2026-11-01',
      label: '2026-11',
      nextStart: new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(utcMonth(new Date('2026-12-01T00:00:00.000Z')).label).toBe('2026-12');
  });

  it('rolls December over into January of the next year', () => {
    expect(utcMonth(new Date('2026-12-31T12:00:00Z'))).toEqual({
      firstDay: '2026-12-01',
      label: '2026-12',
      nextStart: new Date('2027-01-01T00:00:00.000Z'),
    });
  });
});

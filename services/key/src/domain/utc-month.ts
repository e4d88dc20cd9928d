/** A calendar month in UTC: its first day (`YYYY-MM-01`, as stored), its label and when the next begins. */
export interface UtcMonth {
  /** `YYYY-MM-01`, the `date` the usage rows are keyed by. */
  readonly firstDay: string;
  /** `YYYY-MM`. */
  readonly label: string;
  /** Start of the next month, when the count starts again at 0. */
  readonly nextStart: Date;
}

/** The UTC calendar month `now` falls in. */
export const utcMonth = (now: Date): UtcMonth => {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const label = `${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}`;
  return { firstDay: `${label}-01`, label, nextStart: new Date(Date.UTC(year, month + 1, 1)) };
};

/** `YYYY-MM` of a stored `YYYY-MM-01`. */
export const monthLabel = (firstDay: string): string => firstDay.slice(0, 7);

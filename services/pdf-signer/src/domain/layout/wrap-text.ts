/** How wide text is, for breaking it into lines. Widths in the caller's unit (points at the drawn size). */
export interface LineMeasure {
  /**
   * What `unit` adds to a line right after `previous` (the unit before it on the same line, for
   * kerning; undefined at the start of a line). Exact for standard fonts, an estimate for shaped text.
   */
  advance(unit: string, previous: string | undefined): number;
  /**
   * The true width of a whole line, when `advance` is only an estimate (shaping can join, substitute
   * or position glyphs differently from their advances one by one). Omitted when `advance` is exact.
   */
  lineWidth?(line: string): number;
}

/** Re-measurements of one line before its estimate is trusted as it is (each shrinks it by >= 3 %). */
const MAX_REFITS = 24;

/**
 * Greedy line breaking in linear time: every unit (a grapheme cluster, or a character where clusters
 * cannot occur) is measured once and its width accumulated; a line breaks at its last space, and a
 * word longer than a line is cut between units. Spaces at a break are dropped, nothing else is: the
 * lines joined with the dropped spaces give the text back. When widths are estimates, each line is
 * measured once for real and, if it overflows, refitted with a proportionally smaller budget, so the
 * cost stays proportional to the text's length (the old character-by-character re-measuring of a long
 * word grew with the cube of its length: 44 s for a 255-character file name).
 */
export const wrapText = (units: readonly string[], maxWidth: number, measure: LineMeasure): string[] => {
  const lines: string[] = [];
  const n = units.length;
  let pos = 0;
  while (pos < n) {
    while (pos < n && units[pos] === ' ') pos++;
    if (pos >= n) break;
    let budget = maxWidth;
    let line = '';
    let end = pos;
    for (let attempt = 0; ; attempt++) {
      end = breakAt(units, pos, budget, measure);
      line = units.slice(pos, end).join('').trimEnd();
      if (!measure.lineWidth || end - pos <= 1 || attempt >= MAX_REFITS) break;
      const actual = measure.lineWidth(line);
      if (actual <= maxWidth) break;
      budget = Math.min(budget * 0.97, budget * (maxWidth / actual));
    }
    lines.push(line);
    pos = end;
  }
  return lines;
};

/** Where the line that starts at `start` ends (exclusive) when `budget` wide: always after >= 1 unit. */
const breakAt = (units: readonly string[], start: number, budget: number, measure: LineMeasure): number => {
  let width = 0;
  let lastSpace = -1;
  for (let i = start; i < units.length; i++) {
    const unit = units[i] ?? '';
    if (unit === ' ') {
      lastSpace = i;
      width += measure.advance(unit, units[i - 1]);
      continue;
    }
    const added = measure.advance(unit, i === start ? undefined : units[i - 1]);
    if (width + added > budget && i > start) {
      // Break at the last space of the line; a word wider than the line is cut here.
      return lastSpace > start ? lastSpace : i;
    }
    width += added;
  }
  return units.length;
};

import { beforeAll, describe, expect, it } from 'vitest';
import { wrapValue } from './add-audit-page';
import { loadFontLibrary } from '../layout/font-library';
import type { FontLibrary } from '../layout/font-library';
import { cleanText } from '../layout/layout-text';
import { standardFontMetrics } from '../layout/standard-font-metrics';
import { wrapText } from '../layout/wrap-text';

let library: FontLibrary;
beforeAll(async () => {
  library = await loadFontLibrary();
  // fontkit reads some tables of a font the first time a script is laid out: not what is measured here.
  wrapValue({
    text: 'Zoë Анна 王小明 محمد דוד अमित 김민준 Γιώργος \uE000',
    library,
    size: 10.5,
    maxWidth: 100,
  });
});

/** CPU time of a synchronous call (wall time on a shared 2-core machine swings with its load). */
const cpuMs = <T>(work: () => T): { value: T; ms: number } => {
  const before = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(before);
  return { value, ms: (used.user + used.system) / 1000 };
};

const SIZE = 10.5;
const WIDTH = 483.28;

const repeat = (pattern: string, length: number) => {
  const chars = [...pattern];
  return Array.from({ length }, (_, i) => chars[i % chars.length] ?? '').join('');
};

// 255 characters each: the longest file name, and longer than any signer name or typed name.
const CASES: readonly (readonly [string, string])[] = [
  ['private-use characters (no font has them)', '\uE000'.repeat(255)],
  ['CJK without spaces', repeat('山田太郎東京都千代田区丸の内一丁目契約書', 255)],
  ['Japanese file name', repeat('株式会社サンプル_業務委託契約書_2026年度版_最終', 251) + '.pdf'],
  ['Arabic words', repeat('محمد عبد الله بن سعيد ', 255)],
  ['Arabic without spaces', repeat('محمدعبداللهبنسعيد', 255)],
  ['mixed scripts', repeat('Zoë Анна 王小明 محمد דוד अमित 김민준 Γιώργος ', 255)],
  ['mixed scripts without spaces', repeat('ZoëАнна王小明محمدדודअमित김민준Γιώργος', 255)],
  ['Latin without spaces (Helvetica)', repeat('abcdefghijklmnopqrstuvwxyz', 255)],
  ['Latin words (Helvetica)', repeat('Ada Lovelace of the Analytical Engine ', 255)],
  ['combining marks', repeat('e\u0301a\u0300o\u0302', 255)],
];

describe('wrapValue (audit page values)', () => {
  it.each(CASES)('wraps 255 %s within the width, losing nothing, in linear time', (_, raw) => {
    const text = cleanText(raw);
    const { value, ms } = cpuMs(() => wrapValue({ text, library, size: SIZE, maxWidth: WIDTH }));
    const { texts, lines } = value;

    expect(lines.length).toBe(texts.length);
    expect(texts.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.width * SIZE).toBeLessThanOrEqual(WIDTH + 1e-9);
    for (const t of texts) {
      expect(t.length).toBeGreaterThan(0);
      expect(t).toBe(t.trim());
    }
    // Only the spaces where lines break are gone.
    expect(texts.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
    expect(texts.join(' ').length).toBeGreaterThanOrEqual(text.length - (texts.length - 1));
    // The cubic version took 3.9 s (200 CJK) to 44 s (255 private-use) here.
    expect(ms).toBeLessThan(200);
  });

  it('fills lines: each one would overflow with the first unit of the next', () => {
    const text = repeat('山田太郎東京都', 255);
    const { texts } = wrapValue({ text, library, size: SIZE, maxWidth: WIDTH });
    for (let i = 0; i < texts.length - 1; i++) {
      const longer = `${texts[i] ?? ''}${[...(texts[i + 1] ?? '')][0] ?? ''}`;
      const { lines } = wrapValue({ text: longer, library, size: SIZE, maxWidth: Infinity });
      expect((lines[0]?.width ?? 0) * SIZE).toBeGreaterThan(WIDTH);
    }
  });

  it('shows characters no font has as their code point, still within the width', () => {
    const { lines } = wrapValue({ text: '\uE000'.repeat(40), library, size: SIZE, maxWidth: WIDTH });
    const drawn = lines.flatMap((l) => l.pieces.map((p) => ('text' in p ? p.text : ' '))).join('');
    expect(drawn).toContain('[U+E000]');
    for (const line of lines) expect(line.width * SIZE).toBeLessThanOrEqual(WIDTH);
  });

  it('breaks at spaces, never inside a word that fits on a line', () => {
    const { texts } = wrapValue({
      text: 'Ada Lovelace '.repeat(40).trim(),
      library,
      size: SIZE,
      maxWidth: WIDTH,
    });
    for (const t of texts) expect(t.split(' ').every((w) => w === 'Ada' || w === 'Lovelace')).toBe(true);
  });
});

describe('wrapText', () => {
  it('measures Helvetica exactly: kerning included, as pdf-lib measures the whole line', () => {
    const helvetica = standardFontMetrics(library.helvetica);
    const text = repeat('AVATAR To Wa yo LT ', 600);
    const lines = wrapText([...text], 200, {
      advance: (unit, previous) => helvetica.advanceOf(unit, previous, 9),
    });
    for (const line of lines) {
      expect(library.helvetica.widthOfTextAtSize(line, 9)).toBeLessThanOrEqual(200 + 1e-9);
    }
    expect(lines.join(' ')).toBe(text.trim());
  });

  it('measures each unit once and each line a bounded number of times, however long the text', () => {
    for (const length of [100, 1000, 10_000]) {
      let advances = 0;
      let lineWidths = 0;
      const units = Array.from({ length }, () => 'x');
      const lines = wrapText(units, 100, {
        advance: () => {
          advances += 1;
          return 1;
        },
        // Shaping makes every line 5 % wider than its estimate: each is refitted once.
        lineWidth: (line) => {
          lineWidths += 1;
          return line.length * 1.05;
        },
      });
      expect(lines.every((l) => l.length * 1.05 <= 100)).toBe(true);
      expect(lines.join('')).toBe(units.join(''));
      expect(advances).toBeLessThanOrEqual(3 * length);
      expect(lineWidths).toBeLessThanOrEqual(2 * lines.length);
    }
  });

  it('puts a unit wider than the line on a line of its own instead of looping', () => {
    expect(wrapText(['W', 'W', 'W'], 1, { advance: () => 5 })).toEqual(['W', 'W', 'W']);
  });
});

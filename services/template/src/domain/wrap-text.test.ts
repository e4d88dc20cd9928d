import { describe, expect, it } from 'vitest';
import { loadFontSet } from './fonts';
import { plain, t } from './inline';
import { wrapText } from './wrap-text';

const fonts = loadFontSet();
const textOf = (lines: ReturnType<typeof wrapText>) => lines.map((l) => l.runs.map((r) => r.text).join('|'));

describe('wrapText', () => {
  it('breaks at spaces so that no line is wider than the width', () => {
    const sut = wrapText(plain('The quick brown fox jumps over the lazy dog '.repeat(20)), {
      fonts,
      size: 10,
      width: 200,
    });
    expect(sut.length).toBeGreaterThan(5);
    for (const line of sut) expect(line.width).toBeLessThanOrEqual(200);
  });

  it('breaks a word longer than a line between its characters', () => {
    const word = 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(5);
    const sut = wrapText(plain(word), { fonts, size: 10, width: 120 });
    expect(sut.length).toBeGreaterThan(3);
    for (const line of sut) expect(line.width).toBeLessThanOrEqual(120);
    expect(textOf(sut).join('')).toBe(word);
  });

  it('draws filled values in bold and the rest regular, in one line', () => {
    const [line] = wrapText(t`between ${'Acme'} and`, { fonts, size: 10, width: 400 });
    expect(line?.runs.map((r) => [r.text, r.font])).toEqual([
      ['between', 'sans'],
      ['Acme', 'sansBold'],
      ['and', 'sans'],
    ]);
  });

  it('places a run of right-to-left words right to left inside a left-to-right line', () => {
    const [line] = wrapText(plain('to محمد عبد الله today'), { fonts, size: 10, width: 400 });
    const words = line?.runs.map((r) => r.text) ?? [];
    // fontkit reverses the glyphs of each Arabic word; the words themselves are placed in reverse.
    expect(words[0]).toBe('to');
    expect(words.slice(1, 4)).toHaveLength(3);
    expect(words[words.length - 1]).toBe('today');
    const xs = line?.runs.map((r) => r.x) ?? [];
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    expect(line?.runs[1]?.font).toBe('arabic');
  });

  it('falls back to a font that has the characters', () => {
    const [line] = wrapText(plain('Tokyo 東京 Seoul 서울 Bangkok กรุงเทพ'), { fonts, size: 10, width: 500 });
    expect(line?.runs.map((r) => r.font)).toEqual(['sans', 'japanese', 'sans', 'hangul', 'sans', 'thai']);
  });
});

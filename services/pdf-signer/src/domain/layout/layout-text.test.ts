import { beforeAll, describe, expect, it } from 'vitest';
import { loadFontLibrary } from './font-library';
import type { FontLibrary } from './font-library';
import { cleanText, layoutLine } from './layout-text';
import type { TextPiece } from './layout-text';

let library: FontLibrary;
beforeAll(async () => {
  library = await loadFontLibrary();
});

const textPieces = (name: string, chains: 'handwriting' | 'sans' = 'handwriting') =>
  layoutLine(name, library[chains]).pieces.filter((p): p is TextPiece => p.face !== undefined);

describe('layoutLine', () => {
  it.each([
    ['Latin with accents', 'Zoë Ångström-Núñez', ['caveat']],
    ['Cyrillic', 'Анна Каренина', ['caveat']],
    ['Greek', 'Γιώργος Παπαδόπουλος', ['notoSans']],
    ['Vietnamese (beyond Caveat: the whole run moves to Noto Sans)', 'Nguyễn Văn Đức', ['notoSans']],
    ['simplified Chinese', '王小明', ['maShanZheng']],
    ['traditional Chinese', '張偉', ['notoSansJp']],
    ['Japanese (kana and kanji in one font)', 'やまだ 山田', ['notoSansJp']],
    ['Korean', '김민준 이서연', ['nanumPen']],
    ['Arabic', 'محمد عبد الله', ['arefRuqaa']],
    ['Persian with ZWNJ', 'می‌خواهم', ['arefRuqaa', 'notoSansArabic']],
    ['Hebrew', 'דוד כהן', ['notoSansHebrew']],
    ['Devanagari', 'अमित शर्मा', ['notoSans']],
  ])('draws %s without a single .notdef glyph', (_, name, faces) => {
    const line = layoutLine(name, library.handwriting);
    expect(line.unsupported).toEqual([]);
    const pieces = textPieces(name);
    expect(pieces.length).toBeGreaterThan(0);
    for (const piece of pieces) {
      expect(piece.glyphs.length).toBeGreaterThan(0);
      expect(piece.glyphs.every((g) => g.id !== 0)).toBe(true);
    }
    expect(faces).toContain(pieces[0]?.face.name);
    expect(line.width).toBeGreaterThan(0);
  });

  it('orders right-to-left words from the right and keeps left-to-right runs inside them in reading order', () => {
    const line = layoutLine('محمد עברית', library.handwriting);
    expect(line.rtl).toBe(true);
    expect(textPieces('محمد עברית').map((p) => p.text)).toEqual(['עברית', 'محمد']);
    const mixed = layoutLine('Ali محمد Bob', library.handwriting);
    expect(mixed.rtl).toBe(false);
    expect(textPieces('Ali محمد Bob').map((p) => p.text)).toEqual(['Ali', 'محمد', 'Bob']);
    // A number in an Arabic name reads left to right and sits left of the name.
    expect(textPieces('محمد 2').map((p) => p.text)).toEqual(['2', 'محمد']);
  });

  it('reports characters no font has (emoji) and leaves them out', () => {
    const line = layoutLine('Bob 😀', library.handwriting);
    expect(line.unsupported).toEqual(['😀']);
    expect(textPieces('Bob 😀').map((p) => p.text)).toEqual(['Bob']);
  });

  it('uses plain Noto fonts for the audit page chain', () => {
    expect(textPieces('Анна 王小明', 'sans').map((p) => p.face.name)).toEqual(['notoSans', 'notoSansJp']);
  });
});

describe('cleanText', () => {
  it('normalises to NFC, drops control and bidi override characters, collapses spaces', () => {
    expect(cleanText('  Jose\u0301\n\t\u202eDoe\u0000 ')).toBe('José Doe');
    expect(cleanText('می\u200cخواهم')).toBe('می\u200cخواهم');
  });

  it('returns clean ASCII as it is, and cleans ASCII that is not', () => {
    expect(cleanText('Ada Lovelace <ada@example.com>')).toBe('Ada Lovelace <ada@example.com>');
    expect(cleanText('Ada  Lovelace')).toBe('Ada Lovelace');
    expect(cleanText(' Ada Lovelace')).toBe('Ada Lovelace');
    expect(cleanText('Ada Lovelace ')).toBe('Ada Lovelace');
    expect(cleanText('Ada\tLovelace\r\n')).toBe('Ada Lovelace');
    expect(cleanText('Ada\u007fLovelace')).toBe('Ada Lovelace');
    expect(cleanText('')).toBe('');
  });
});

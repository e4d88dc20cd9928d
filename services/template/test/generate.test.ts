import {
  inkAt,
  pdfFonts,
  pdfInfo,
  pdfText,
  qpdfCheck,
  renderPage,
  runPdfTool,
  type RenderedPage,
} from '@esign/testing';
import { TemplateList, type TPosition } from '@esign/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES } from '../src/templates';
import {
  bodyText,
  extractText,
  normalizeText,
  startHarness,
  wordBoxes,
  type TemplateHarness,
} from './helpers';

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 64;

let harness: TemplateHarness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

/** What a reader should find in the PDF for each filled value. */
const expectedTexts = (slug: string, fields: Record<string, string>): string[] => {
  const template = TEMPLATES.find((t) => t.slug === slug);
  return Object.entries(fields).flatMap(([name, value]) => {
    const type = template?.fields.find((f) => f.name === name)?.type;
    if (type === 'amount') return [Number(value).toFixed(2)];
    if (type === 'lineItems') {
      const items = JSON.parse(value) as {
        description: string;
        quantity: number | string;
        unitPrice: string | number;
      }[];
      return items.flatMap((item) => [
        item.description,
        String(Number(item.quantity)),
        Number(item.unitPrice).toFixed(2),
      ]);
    }
    return [value];
  });
};

/** Rows of pixels from `top` to `bottom` (percent of the page) where at least `share` of [x0, x1] is ink. */
const inkRows = (
  page: RenderedPage,
  box: { x: number; width: number; top: number; bottom: number },
  share = 0.95,
) => {
  const x0 = Math.ceil((page.width * box.x) / 100);
  const x1 = Math.floor((page.width * (box.x + box.width)) / 100);
  const rows: number[] = [];
  for (
    let y = Math.floor((page.height * box.top) / 100);
    y <= Math.ceil((page.height * box.bottom) / 100);
    y++
  ) {
    let ink = 0;
    for (let x = x0; x < x1; x++) if ((page.data[(y * page.width + x) * 3] ?? 255) < 160) ink += 1;
    if (ink >= share * (x1 - x0)) rows.push(y);
  }
  return rows;
};

/** Height in percent of the page of the box a signature `width` percent wide takes at 2.5:1. */
const boxHeight = (p: TPosition) => ((p.width / 2.5) * PAGE_WIDTH) / PAGE_HEIGHT;

const expectSignatureBlocksAt = async (pdf: Buffer, positions: TPosition[], pageCount: number) => {
  for (const p of positions) {
    expect(p.page).toBeGreaterThanOrEqual(0);
    expect(p.page).toBeLessThan(pageCount);
    expect(p.width).toBeGreaterThanOrEqual(10);
    expect(p.width).toBeLessThanOrEqual(60);
    expect(p.x).toBeGreaterThanOrEqual(0);
    expect(p.x + p.width).toBeLessThanOrEqual(100);
    expect(p.y + boxHeight(p)).toBeLessThanOrEqual(100);
    const page = await renderPage(pdf, p.page, 100);
    // The box a signature will take is empty paper...
    expect(inkAt(page, { x: p.x, y: p.y, width: p.width, height: boxHeight(p) })).toBe(0);
    // ...and the signature line runs right under it, across its whole width.
    const below = p.y + boxHeight(p);
    expect(
      inkRows(page, { x: p.x, width: p.width, top: below, bottom: below + (8 / PAGE_HEIGHT) * 100 }),
    ).not.toEqual([]);
  }
};

/** The last body line of each page (above the footer) is never a clause heading or the signatures heading. */
const expectNoOrphanedHeadings = async (pdf: Buffer, pageCount: number) => {
  for (let page = 0; page < pageCount - 1; page++) {
    const lines = (await pdfText(pdf, page))
      .split('\n')
      .filter((l) => l.trim() && !/Page \d+ of \d+/.test(l));
    const last = lines[lines.length - 1] ?? '';
    expect(last, `last line of page ${page + 1}`).not.toMatch(/^\s*\d+\.\s{2,}\S/);
    expect(last.trim(), `last line of page ${page + 1}`).not.toBe('Signatures');
  }
};

describe('template.list', () => {
  it('lists the six templates with their fields, nda as the spec describes it', async () => {
    const { templates } = await harness.client.request(TemplateList, {});

    expect(templates.map((t) => t.slug)).toEqual([
      'nda',
      'freelance-contract',
      'employment-offer',
      'lease',
      'consulting',
      'invoice',
    ]);
    for (const t of templates) {
      expect(t.name).not.toBe('');
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.fields.length).toBeGreaterThan(2);
      expect(t.fields.some((f) => f.required)).toBe(true);
    }
    expect(templates[0]?.fields.map(({ name, type, required }) => ({ name, type, required }))).toEqual([
      { name: 'partyA', type: 'text', required: true },
      { name: 'partyB', type: 'text', required: true },
      { name: 'effectiveDate', type: 'date', required: true },
      { name: 'jurisdiction', type: 'text', required: false },
    ]);
    expect(templates.find((t) => t.slug === 'invoice')?.fields.find((f) => f.name === 'items')?.type).toBe(
      'lineItems',
    );
  });
});

describe('template.generate', () => {
  it.each(TEMPLATES.map((t) => [t.slug, t.example] as const))(
    'renders %s: valid PDF, every value in the text, page numbers, signature blocks where the positions say',
    async (slug, fields) => {
      const { reply, pdf } = await harness.generate(slug, { ...fields });

      expect(reply.objectKey).toMatch(new RegExp(`^generated/${harness.accountId}/[0-9a-f-]{36}\\.pdf$`));
      expect(reply.size).toBe(pdf.length);
      expect(reply.fileName).toMatch(new RegExp(`^${slug}-.+\\.pdf$`));
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const check = await qpdfCheck(pdf);
      expect(check.ok, check.stdout + check.stderr).toBe(true);
      expect(Number((await pdfInfo(pdf)).Pages)).toBe(reply.pageCount);

      const text = await extractText(pdf);
      for (const value of expectedTexts(slug, fields)) expect(text).toContain(normalizeText(value));
      for (let page = 0; page < reply.pageCount; page++) {
        expect(await extractText(pdf, page)).toContain(`Page ${page + 1} of ${reply.pageCount}`);
      }
      const fonts = await pdfFonts(pdf);
      expect(fonts.length).toBeGreaterThan(0);
      expect(fonts.every((f) => f.embedded && f.subset)).toBe(true);

      expect(reply.positions).toHaveLength(2);
      await expectSignatureBlocksAt(pdf, reply.positions, reply.pageCount);
      await expectNoOrphanedHeadings(pdf, reply.pageCount);
    },
  );

  it('adds up an invoice: line amounts, tax and total to the cent', async () => {
    const { pdf } = await harness.generate('invoice', {
      invoiceNumber: 'T-1',
      issueDate: '2025-01-31',
      dueDate: '2025-02-28',
      sellerName: 'Seller Co',
      buyerName: 'Buyer Co',
      items: JSON.stringify([
        { description: 'Widgets', quantity: '3', unitPrice: '19.99' },
        { description: 'Half day', quantity: 0.5, unitPrice: 801.01 },
      ]),
      taxRate: '7.5',
    });
    const text = await extractText(pdf);
    // 3 x 19.99 = 59.97; 0.5 x 801.01 = 400.505 -> 400.51; subtotal 460.48; 7.5% = 34.536 -> 34.54.
    expect(text).toContain('59.97');
    expect(text).toContain('400.51');
    expect(text).toContain('Subtotal USD 460.48');
    expect(text).toContain('Tax (7.5%) USD 34.54');
    expect(text).toContain('Total due USD 495.02');
  });

  it.each([
    ['Cyrillic and Greek', 'Иван Петров и Ελένη Παπαδοπούλου', 'NotoSans'],
    ['Arabic', 'شركة النور للتجارة', 'NotoSansArabic'],
    ['Hebrew', 'חברת האור בע״מ', 'NotoSansHebrew'],
    ['Chinese', '上海华联科技有限公司', 'MaShanZheng'],
    ['Japanese', '株式会社ひかり商事', 'NotoSansJP'],
    ['Korean', '대한민국 주식회사', 'NanumPen'],
    ['Thai', 'บริษัท แสงทอง จำกัด', 'NotoSansThai'],
    ['Devanagari', 'भारत ट्रेडर्स प्राइवेट लिमिटेड', 'NotoSans'],
  ])('draws %s values with an embedded font that has their glyphs', async (_script, value, fontName) => {
    const { reply, pdf } = await harness.generate('nda', {
      partyA: value,
      partyB: 'Jane Roe',
      effectiveDate: '2025-03-01',
      jurisdiction: value,
    });

    expect((await qpdfCheck(pdf)).ok).toBe(true);
    const fonts = await pdfFonts(pdf);
    expect(fonts.every((f) => f.embedded && f.subset)).toBe(true);
    expect(fonts.some((f) => f.name.includes(`+${fontName}`))).toBe(true);
    expect(await extractText(pdf)).toContain(normalizeText(value));
    await expectSignatureBlocksAt(pdf, reply.positions, reply.pageCount);
  });

  it('draws a value that looks like PDF syntax as text, never as syntax', async () => {
    const value = 'Mallory ) Tj /Foo ( << /Type /Catalog >> endobj \\ (';
    const { pdf } = await harness.generate('nda', {
      partyA: value,
      partyB: 'Jane Roe',
      effectiveDate: '2025-03-01',
    });

    const check = await qpdfCheck(pdf);
    expect(check.ok, check.stdout + check.stderr).toBe(true);
    expect(await extractText(pdf)).toContain(value);
    // Uncompressed, the file holds the value only as glyph ids: no name /Foo appears anywhere.
    const { stdout } = await runPdfTool('qpdf', ['--qdf', '--object-streams=disable', '{file}', '-'], pdf);
    expect(stdout).not.toContain('/Foo');
    expect(stdout).not.toContain('Mallory');
  });

  it('wraps very long values, and words longer than a line, inside the margins', async () => {
    const longText = Array.from({ length: 320 }, (_, i) => `word${i}`).join(' ');
    const longWord = 'Supercalifragilistic'.repeat(30);
    const longCjk = '中华人民共和国上海市浦东新区'.repeat(40);
    const { reply, pdf } = await harness.generate('nda', {
      partyA: longText,
      partyB: longCjk,
      effectiveDate: '2025-03-01',
      jurisdiction: longWord,
    });

    expect((await qpdfCheck(pdf)).ok).toBe(true);
    const words = await wordBoxes(pdf);
    expect(words.length).toBeGreaterThan(500);
    for (const w of words) {
      expect(w.xMin, w.word).toBeGreaterThanOrEqual(MARGIN - 1);
      expect(w.xMax, w.word).toBeLessThanOrEqual(w.pageWidth - MARGIN + 1);
      expect(w.yMin, w.word).toBeGreaterThanOrEqual(0);
      expect(w.yMax, w.word).toBeLessThanOrEqual(w.pageHeight - 30);
    }
    const squashed = (await bodyText(pdf, reply.pageCount)).replace(/\s+/g, '');
    for (const value of [longText, longWord, longCjk]) expect(squashed).toContain(value.replace(/\s+/g, ''));
    expect(reply.pageCount).toBeGreaterThan(3);
    for (let page = 0; page < reply.pageCount; page++) {
      expect(await extractText(pdf, page)).toContain(`Page ${page + 1} of ${reply.pageCount}`);
    }
    await expectSignatureBlocksAt(pdf, reply.positions, reply.pageCount);
    await expectNoOrphanedHeadings(pdf, reply.pageCount);
  });

  it('keeps each PDF under its own key in the bucket', async () => {
    const first = await harness.generate('nda', TEMPLATES[0]?.example ?? {});
    const second = await harness.generate('nda', TEMPLATES[0]?.example ?? {});

    expect(first.reply.objectKey).not.toBe(second.reply.objectKey);
    expect(await harness.blob.stat(first.reply.objectKey)).toEqual({ size: first.reply.size });
  });
});

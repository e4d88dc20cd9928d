import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { makePdf } from '@esign/testing';
import { baseUrl, createAccount } from './harness';

interface Field {
  name: string;
  type: string;
  required: string;
  default?: unknown;
  rule: string;
}

const SPEC_FIELDS = [
  'file',
  'signatureData',
  'signerName',
  'signerEmail',
  'x',
  'y',
  'page',
  'width',
  'mode',
  'typedName',
  'positions',
  'sigColor',
];

describe('GET /api/v1/sign (field reference)', () => {
  it('answers JSON for Accept: application/json, listing every field with its rule and default', async () => {
    const res = await fetch(`${baseUrl}/api/v1/sign`, { headers: { Accept: 'application/json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { fields: Field[]; headers: Record<string, string> };
    expect(body.headers['Idempotency-Key']).toMatch(/same signed document/);
    const byName = new Map(body.fields.map((f) => [f.name, f]));
    expect([...byName.keys()].sort()).toEqual([...SPEC_FIELDS].sort());
    expect(byName.get('x')).toMatchObject({ type: 'number', default: 50, rule: '0-100' });
    expect(byName.get('y')).toMatchObject({ default: 85, rule: '0-100' });
    expect(byName.get('page')).toMatchObject({ type: 'integer', default: 0 });
    expect(byName.get('width')).toMatchObject({ default: 25, rule: '10-60' });
    expect(byName.get('mode')).toMatchObject({ default: 'draw', rule: 'one of draw, type, upload' });
    expect(byName.get('sigColor')).toMatchObject({ default: '#1e3a8a' });
    expect(byName.get('signerName')?.required).toBe('yes');
    expect(byName.get('typedName')?.required).toBe('yes, when mode=type');
    expect(byName.get('signatureData')?.required).toBe('yes, in draw and upload mode');
    expect(byName.get('file')?.rule).toContain('25 MB');
  });

  describe('in a browser', () => {
    let browser: Browser;
    let dir: string;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      dir = await mkdtemp(join(tmpdir(), 'esign-ref-'));
    });
    afterAll(async () => {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('shows the same fields as a page and signs a document typed into its form', async () => {
      const { apiKey } = await createAccount();
      const pdfPath = join(dir, 'browser.pdf');
      await writeFile(pdfPath, await makePdf({ pages: 1 }));
      const page = await browser.newPage();
      await page.goto(`${baseUrl}/api/v1/sign`);
      expect(await page.title()).toContain('/api/v1/sign');
      const rows: (string | null)[] = [];
      for (const row of await page.locator('#fields tbody tr').all())
        rows.push(await row.getAttribute('data-field'));
      expect([...rows].sort()).toEqual([...SPEC_FIELDS].sort());

      await page.fill('#apiKey', apiKey);
      await page.setInputFiles('input[name=file]', pdfPath);
      await page.fill('input[name=signerName]', 'Browser User');
      await page.fill('input[name=signerEmail]', 'browser@example.com');
      await page.selectOption('select[name=mode]', 'type');
      await page.fill('input[name=typedName]', 'Browser User');
      await page.click('button[type=submit]');
      await page.locator('#result', { hasText: /^Signed\./ }).waitFor({ timeout: 20_000 });
      const text = (await page.textContent('#result')) ?? '';
      expect(text).toMatch(/Audit ID [A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}/);
      expect(await page.locator('#result a').getAttribute('download')).toBe('signed.pdf');
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makePdf, makePng } from '@esign/testing';
import { baseUrl, createAccount, dataUri, sign } from './harness';

let browser: Browser;
let signed: Buffer;
let auditId: string;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const account = await createAccount();
  const res = await sign(account.apiKey, {
    file: { bytes: await makePdf(), name: 'lease.pdf' },
    fields: {
      signerName: 'Grace Hopper',
      signerEmail: 'grace@example.com',
      signatureData: dataUri(await makePng()),
      positions: [{ x: 10, y: 70, page: 0, width: 20 }],
    },
  });
  expect(res.status).toBe(200);
  signed = Buffer.from(await res.arrayBuffer());
  auditId = res.headers.get('x-audit-id') ?? '';
}, 60_000);

afterAll(async () => {
  await browser.close();
});

/** A page that records console errors, failed responses and any request to another origin. */
const openPage = async (path: string, width: number, height: number) => {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 404/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(baseUrl) && !r.url().startsWith('data:')) problems.push(`foreign ${r.url()}`);
  });
  const res = await page.goto(`${baseUrl}${path}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
  return { page, problems };
};

const pick = async (page: Page, bytes: Buffer, name: string) => {
  await page.setInputFiles('#file', { name, mimeType: 'application/pdf', buffer: bytes });
  await page.locator('#report:not([hidden])').waitFor({ timeout: 20_000 });
};

describe('/verify', () => {
  it('says a signed file is valid and ours, and a tampered one fails, in plain words', async () => {
    const { page, problems } = await openPage('/verify', 1280, 900);
    await pick(page, signed, 'lease-signed.pdf');
    const report = page.locator('#report');
    await expect.poll(() => report.textContent()).toContain('The signatures are valid');
    expect(await report.textContent()).toContain(`We issued this exact file: audit ID ${auditId}`);
    expect(await report.textContent()).toMatch(/Trusted timestamp.*verified/);
    await page.screenshot({ path: '/tmp/verify-page-desktop.png', fullPage: true });

    const tampered = Buffer.from(signed);
    const at = tampered.indexOf('stream') + 20;
    tampered[at] = (tampered[at] ?? 0) ^ 0x01;
    await pick(page, tampered, 'lease-tampered.pdf');
    await expect.poll(() => report.textContent()).toContain('This file fails the check');
    expect(await report.textContent()).toContain('We did not issue this file');
    expect(await report.textContent()).toMatch(/they were changed/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('on /verify/<auditId>, shows the record and whether the dropped copy is that document; works at phone width with the keyboard', async () => {
    const { page, problems } = await openPage(`/verify/${auditId}`, 390, 844);
    const record = page.locator('#record');
    await expect.poll(() => record.textContent()).toContain('We issued a document with this audit ID');
    expect(await record.textContent()).toContain('G*** H***');
    expect(await record.textContent()).not.toContain('grace@example.com');
    // The file picker is reached with the keyboard.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('file');
    await pick(page, signed, 'lease-signed.pdf');
    await expect
      .poll(() => page.locator('#report').textContent())
      .toContain(`It is exactly the document of audit ID ${auditId}`);
    // Nothing wider than the phone's screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: '/tmp/verify-page-phone.png', fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says so for an unknown audit ID', async () => {
    const { page } = await openPage('/verify/ESG-0000-0000-0000', 800, 600);
    await expect
      .poll(() => page.locator('#record').textContent())
      .toContain('We have no document with this audit ID');
    await page.close();
  });
});

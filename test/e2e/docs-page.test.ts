import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { baseUrl } from './harness';

interface OpenApi {
  paths: Record<string, Record<string, { operationId: string }>>;
  webhooks?: Record<string, Record<string, unknown>>;
}

let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser.close();
});

describe('GET /docs', () => {
  it('lists every operation of the OpenAPI document, offline: no console errors, no request leaves the gateway', async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApi;
    const operationIds = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const consoleErrors: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    page.on('response', (response) => {
      if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(baseUrl) && !url.startsWith('data:')) foreign.push(url);
    });
    const res = await page.goto(`${baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    // Swagger UI gives each operation an element whose id ends with its operationId.
    for (const id of operationIds) {
      expect(await page.locator(`[id$="-${id}"]`).count(), `operation ${id} on the page`).toBeGreaterThan(0);
    }
    // Swagger UI shows the document's webhooks (the events we POST to receivers) as blocks too.
    const webhookCount = Object.values(doc.webhooks ?? {}).flatMap((methods) =>
      Object.values(methods),
    ).length;
    expect(webhookCount).toBeGreaterThan(0);
    expect(await page.locator('.opblock').count()).toBe(operationIds.length + webhookCount);
    expect(await page.textContent('#sandbox-token')).toMatch(/^svc_sandbox_/);
    expect(consoleErrors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});

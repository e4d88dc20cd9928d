import { randomBytes } from 'node:crypto';
import { inject, beforeAll, describe, expect, it } from 'vitest';
import {
  makePdf,
  makePng,
  parseSamples,
  promtoolCheckMetrics,
  scrapeMetrics,
  valueOf,
  type Sample,
} from '@esign/testing';
import { auth, baseUrl, createAccount, dataUri, sign, type TestAccount } from './harness';

/**
 * The gateway's /metrics on the whole stack: a signing, a refused signing (400), a body over its
 * limit (413), a document read by its audit ID and a signing link, each counted under its route
 * template, and none of the IDs, tokens or keys they carried anywhere in the scrape.
 */
const gatewayMetrics = inject('stack').metricsUrls.gateway?.[0];

const scrape = async () => {
  if (!gatewayMetrics) throw new Error('the stack names no /metrics URL of the gateway');
  const text = await scrapeMetrics(Number(new URL(gatewayMetrics).port));
  return { text, samples: parseSamples(text) };
};

const DURATION = 'http_server_request_duration_count';
const moved = (before: Sample[], after: Sample[], name: string, labels: Record<string, string>) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

let account: TestAccount;
let signatureData: string;

beforeAll(async () => {
  account = await createAccount('business');
  signatureData = dataUri(await makePng({ width: 300, height: 100 }));
});

describe('the edge at the gateway /metrics', () => {
  it('counts a signing, a 400, a 413, a document read and a signing link under their route templates, and never their IDs', async () => {
    const before = (await scrape()).samples;
    const fields = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com', signatureData };

    const signed = await sign(account.apiKey, {
      file: { bytes: await makePdf({ pages: 1 }), name: 'contract.pdf', type: 'application/pdf' },
      fields,
    });
    expect(signed.status).toBe(200);
    const auditId = signed.headers.get('x-audit-id') ?? '';
    expect(auditId).not.toBe('');
    const pdfBytes = (await signed.arrayBuffer()).byteLength;

    const noFile = await sign(account.apiKey, { fields });
    expect(noFile.status).toBe(400);
    await noFile.body?.cancel();

    const tooLarge = await fetch(`${baseUrl}/api/v1/sandbox/sign`, {
      method: 'POST',
      headers: { Authorization: 'Bearer svc_sandbox_public_demo', 'Content-Type': 'application/json' },
      body: JSON.stringify({ document_url: `https://example.com/${'x'.repeat(300_000)}` }),
    });
    expect(tooLarge.status).toBe(413);
    await tooLarge.body?.cancel();

    const doc = await fetch(`${baseUrl}/api/v1/documents/${auditId}`, { headers: auth(account.apiKey) });
    expect(doc.status).toBe(200);
    await doc.body?.cancel();

    const token = randomBytes(32).toString('base64url');
    const link = await fetch(`${baseUrl}/s/${token}`);
    expect(link.status).toBeGreaterThanOrEqual(400);
    await link.body?.cancel();

    const { text, samples: after } = await scrape();
    const sign200 = { http_route: '/api/v1/sign', http_request_method: 'POST' };
    expect(moved(before, after, DURATION, { ...sign200, http_response_status_class: '2xx' })).toBe(1);
    expect(moved(before, after, DURATION, { ...sign200, http_response_status_class: '4xx' })).toBe(1);
    // Bytes out of the sign route: the signed PDF and the 400's error body.
    expect(moved(before, after, 'http_server_response_body_size_sum', sign200)).toBeGreaterThanOrEqual(
      pdfBytes,
    );
    expect(moved(before, after, 'http_server_request_body_size_sum', sign200)).toBeGreaterThan(0);
    expect(
      moved(before, after, 'esign_http_refused_total', {
        http_route: '/api/v1/sandbox/sign',
        reason: 'size',
      }),
    ).toBe(1);
    expect(
      moved(before, after, DURATION, {
        http_route: '/api/v1/documents/:auditId',
        http_response_status_class: '2xx',
      }),
    ).toBe(1);
    expect(moved(before, after, DURATION, { http_route: '/s/:token', http_request_method: 'GET' })).toBe(1);
    // Histograms with observations in their buckets, not only counts.
    expect(valueOf(after, 'http_server_request_duration_bucket', { ...sign200, le: '+Inf' })).toBeGreaterThan(
      0,
    );

    for (const secret of [auditId, token, account.apiKey, account.accountId, account.keyId]) {
      expect(text).not.toContain(secret);
    }
    expect(await promtoolCheckMetrics(text)).toEqual({ code: 0, output: '' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, pdfSig, startTestTsa, valueOf } from '@esign/testing';
import type { TestTsa } from '@esign/testing';
import { scrapeMetrics } from './scrape-metrics';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

describe('the warm-up at start-up (SIGN_WARM_UP_MS)', () => {
  let tsa: TestTsa;
  let sut: TestSigner;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    tsa = await startTestTsa();
    sut = await startTestSigner(
      { TSA_URLS: tsa.url, SIGN_WORKERS: '2', SIGN_WARM_UP_MS: '300' },
      { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
  }, 60_000);
  afterAll(async () => {
    await sut.stop();
    await tsa.stop();
  });

  it('signs in every worker, then through the pool, before the service takes requests', () => {
    const messages = lines.map((line) => line.msg);
    const workers = lines.filter((line) => line.msg === 'signing worker ready');
    expect(workers).toHaveLength(2);
    for (const worker of workers) expect(worker.warmUpSignings).toBeGreaterThanOrEqual(1);
    const pool = lines.find((line) => line.msg === 'signer warmed up');
    expect(pool?.signings).toBeGreaterThanOrEqual(1);
    // Logged once the endpoints are subscribed and the health server answers: after the warm-up.
    const serving = messages.indexOf('sealing with certificate');
    expect(serving).toBeGreaterThan(messages.indexOf('signer warmed up'));
    expect(serving).toBeGreaterThan(messages.lastIndexOf('signing worker ready'));
  });

  it('asks no TSA, stores nothing and counts no signing', async () => {
    expect(tsa.requests()).toBe(0);
    expect(await sut.blob.list('')).toEqual([]);
    const { samples } = await scrapeMetrics(sut);
    expect(valueOf(samples, 'esign_signer_job_duration_count', { esign_job: 'sign' })).toBe(0);
    expect(valueOf(samples, 'esign_signer_queue_wait_count', { esign_job: 'sign' })).toBe(0);
    expect(valueOf(samples, 'esign_signer_pages_total')).toBe(0);
    expect(lines.map((line) => line.msg)).not.toContain('signing worker warm-up failed');
    expect(lines.map((line) => line.msg)).not.toContain('signer warm-up failed');
  });

  it('leaves the signing of the first request as it was: timestamped, and counted', async () => {
    const { reply, signed } = await sut.sign(await makePdf());
    expect(reply.timestamp).toBeDefined();
    expect(tsa.requests()).toBeGreaterThanOrEqual(1);
    expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
    const { samples } = await scrapeMetrics(sut);
    expect(
      valueOf(samples, 'esign_signer_job_duration_count', { esign_job: 'sign', esign_outcome: 'ok' }),
    ).toBe(1);
  });
});

describe('without a warm-up (SIGN_WARM_UP_MS=0)', () => {
  it('signs nothing of its own before it takes requests', async () => {
    const lines: Record<string, unknown>[] = [];
    const sut = await startTestSigner(
      { SIGN_WARM_UP_MS: '0' },
      { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    );
    try {
      const workers = lines.filter((line) => line.msg === 'signing worker ready');
      expect(workers.length).toBeGreaterThanOrEqual(1);
      for (const worker of workers) expect(worker).not.toHaveProperty('warmUpSignings');
      expect(lines.map((line) => line.msg)).not.toContain('signer warmed up');
    } finally {
      await sut.stop();
    }
  }, 60_000);
});

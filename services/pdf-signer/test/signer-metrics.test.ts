import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, startTestPki, startTestTsa } from '@esign/testing';
import type { TestPki, TestTsa } from '@esign/testing';
import { has, promtoolCheckMetrics, valueOf, type Sample } from '@esign/testing';
import { scrapeMetrics } from './scrape-metrics';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

let pki: TestPki;
let tsa: TestTsa;
let sut: TestSigner;
let provider: string;

const scrape = () => scrapeMetrics(sut);

beforeAll(async () => {
  pki = await startTestPki();
  tsa = await startTestTsa({
    identity: { certPem: pki.certs.tsa.certPem, keyPem: pki.certs.tsa.keyPem, caCertPem: pki.caCertPem },
  });
  provider = new URL(tsa.url).host;
  sut = await startTestSigner({
    SIGNING_KEY_PEM: pki.certs.good.keyPem,
    SIGNING_CERT_PEM: `${pki.certs.good.certPem}${pki.caCertPem}`,
    TSA_URLS: tsa.url,
    TSA_TIMEOUT_MS: '1000',
    REVOCATION_TIMEOUT_MS: '1000',
    PADES_LEVEL: 'B-LT',
    SIGN_WORKERS: '1',
  });
}, 60_000);

afterAll(async () => {
  await sut?.stop();
  await tsa?.stop();
  await pki?.stop();
});

describe("the signer's metrics at /metrics", () => {
  it('count jobs by outcome, their queue wait, pages, TSA and OCSP requests by provider, and the time left of certificates and revocation data', async () => {
    const { signed } = await sut.sign(await makePdf({ pages: 2 }));
    await sut.sign(await makePdf({ pages: 1 }));
    expect((await sut.verify(signed)).signatures).toHaveLength(1);
    const refused = await sut.signError(Buffer.from('%PDF-1.7\nnot really a PDF'));
    expect(refused.code).toBe('invalid_argument');

    const { text, samples } = await scrape();
    const job = (outcome: string) =>
      valueOf(samples, 'esign_signer_job_duration_count', { esign_job: 'sign', esign_outcome: outcome });
    expect(job('ok')).toBe(2);
    expect(job('rejected')).toBe(1);
    expect(job('error')).toBe(0);
    // Verification runs on a worker of its own: its jobs are counted, not queued with the signings.
    expect(
      valueOf(samples, 'esign_signer_job_duration_count', { esign_job: 'verify', esign_outcome: 'ok' }),
    ).toBe(1);
    expect(valueOf(samples, 'esign_signer_queue_wait_count', { esign_job: 'verify' })).toBe(0);
    expect(valueOf(samples, 'esign_signer_queue_wait_count', { esign_job: 'sign' })).toBe(3);
    // Two pages and one, each with its audit page.
    expect(valueOf(samples, 'esign_signer_pages_total')).toBe(5);
    expect(valueOf(samples, 'esign_signer_workers')).toBe(1);
    expect(valueOf(samples, 'esign_signer_jobs_active')).toBe(0);
    expect(valueOf(samples, 'esign_signer_jobs_queued')).toBe(0);

    // One token per signing, from the configured TSA, named by its host only.
    expect(
      valueOf(samples, 'esign_signer_timestamp_duration_count', {
        esign_provider: provider,
        esign_outcome: 'ok',
      }),
    ).toBe(2);
    expect(text).not.toContain(tsa.url);
    // The signing chain's OCSP response, fetched at start-up from the responder its certificate names.
    expect(
      valueOf(samples, 'esign_signer_revocation_duration_count', {
        esign_revocation: 'ocsp',
        esign_provider: new URL(pki.ocspUrl).host,
        esign_outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);

    const timeLeft = (certificate: string) =>
      valueOf(samples, 'esign_signer_certificate_time_left', { esign_certificate: certificate });
    expect(timeLeft('signing')).toBeGreaterThan(0);
    expect(timeLeft('timestamp_authority')).toBeGreaterThan(0);
    // The test responder's answers are good for an hour (openssl ocsp -nmin 60).
    const revocationLeft = valueOf(samples, 'esign_signer_revocation_time_left');
    expect(revocationLeft).toBeGreaterThan(0);
    expect(revocationLeft).toBeLessThanOrEqual(3600);

    const check = await promtoolCheckMetrics(text);
    expect(check.output).toBe('');
    expect(check.code).toBe(0);
  }, 60_000);

  it('count a failing TSA as timestamp requests in error, and its signing as a job in error', async () => {
    const before = (await scrape()).samples;
    const failed = (samples: Sample[]) =>
      valueOf(samples, 'esign_signer_timestamp_duration_count', {
        esign_provider: provider,
        esign_outcome: 'error',
      });
    const jobErrors = (samples: Sample[]) =>
      valueOf(samples, 'esign_signer_job_duration_count', { esign_job: 'sign', esign_outcome: 'error' });
    tsa.setMode('down');
    try {
      const err = await sut.signError(await makePdf({ pages: 1 }));
      expect(err.code).toBe('unavailable');
    } finally {
      tsa.setMode('ok');
    }
    const after = (await scrape()).samples;
    expect(failed(after)).toBe(failed(before) + 1);
    expect(jobErrors(after)).toBe(jobErrors(before) + 1);
    expect(has(after, 'esign_signer_timestamp_duration_bucket', { esign_outcome: 'error', le: '+Inf' })).toBe(
      true,
    );
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { ConfigError } from '@esign/config';
import { availableParallelism } from 'node:os';
import { loadPdfSignerConfig, readSigningMaterial, signWorkerCount, timestampSettings } from './config';

describe('pdf-signer config', () => {
  it('defaults MAX_FILE_BYTES to 25 MiB and signs with the development certificate when no key is set', () => {
    const config = loadPdfSignerConfig({});
    expect(config.MAX_FILE_BYTES).toBe(25 * 1024 * 1024);
    expect(readSigningMaterial(config)).toBeUndefined();
  });

  it('handles 8 documents at once by default (most wait for a TSA token), and takes another bound from MAX_CONCURRENT_SIGNS', () => {
    expect(loadPdfSignerConfig({}).MAX_CONCURRENT_SIGNS).toBe(8);
    expect(loadPdfSignerConfig({}).SIGN_JOBS_PER_WORKER).toBe(16);
    expect(loadPdfSignerConfig({ SIGN_JOBS_PER_WORKER: '1' }).SIGN_JOBS_PER_WORKER).toBe(1);
    expect(() => loadPdfSignerConfig({ SIGN_JOBS_PER_WORKER: '0' })).toThrow(/SIGN_JOBS_PER_WORKER/);
    expect(loadPdfSignerConfig({ MAX_CONCURRENT_SIGNS: '4' }).MAX_CONCURRENT_SIGNS).toBe(4);
    expect(() => loadPdfSignerConfig({ MAX_CONCURRENT_SIGNS: '0' })).toThrow(/MAX_CONCURRENT_SIGNS/);
  });

  it('signs on one worker per CPU (at most 2 by default), never more than MAX_CONCURRENT_SIGNS, with a 30 s budget and 256 MB each', () => {
    const defaults = loadPdfSignerConfig({});
    expect(signWorkerCount(defaults)).toBe(Math.min(availableParallelism(), 2));
    expect(defaults.SIGN_JOB_BUDGET_MS).toBe(30_000);
    expect(defaults.SIGN_WORKER_HEAP_MB).toBe(256);
    expect(defaults.SIGN_WORKER_YOUNG_MB).toBe(12);
    expect(loadPdfSignerConfig({ SIGN_WORKER_YOUNG_MB: '0' }).SIGN_WORKER_YOUNG_MB).toBe(0);
    expect(signWorkerCount(loadPdfSignerConfig({ SIGN_WORKERS: '8', MAX_CONCURRENT_SIGNS: '3' }))).toBe(3);
    expect(signWorkerCount(loadPdfSignerConfig({ SIGN_WORKERS: '1', MAX_CONCURRENT_SIGNS: '8' }))).toBe(1);
    expect(() => loadPdfSignerConfig({ SIGN_JOB_BUDGET_MS: '10' })).toThrow(/SIGN_JOB_BUDGET_MS/);
    expect(() => loadPdfSignerConfig({ SIGN_WORKERS: '0' })).toThrow(/SIGN_WORKERS/);
  });

  it('seals at PAdES B-LT by default; B-LTA needs TSAs; the audit page address has no trailing slash', () => {
    const defaults = loadPdfSignerConfig({});
    expect(defaults.PADES_LEVEL).toBe('B-LT');
    expect(defaults.PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(loadPdfSignerConfig({ PUBLIC_BASE_URL: 'https://sign.example.com/' }).PUBLIC_BASE_URL).toBe(
      'https://sign.example.com',
    );
    expect(() => loadPdfSignerConfig({ PADES_LEVEL: 'B-LTA' })).toThrow(/PADES_LEVEL.*TSA_URLS/s);
    expect(loadPdfSignerConfig({ PADES_LEVEL: 'B-LTA', TSA_URLS: 'http://tsa.example' }).PADES_LEVEL).toBe(
      'B-LTA',
    );
    expect(() => loadPdfSignerConfig({ PADES_LEVEL: 'B-B' })).toThrow(/PADES_LEVEL/);
  });

  it('on SIGTERM finishes what it holds for up to 40 s, always longer than one job may take', () => {
    expect(loadPdfSignerConfig({}).SHUTDOWN_GRACE_MS).toBe(40_000);
    expect(() => loadPdfSignerConfig({ SIGN_JOB_BUDGET_MS: '60000' })).toThrow(/SHUTDOWN_GRACE_MS/);
    const longer = loadPdfSignerConfig({ SIGN_JOB_BUDGET_MS: '60000', SHUTDOWN_GRACE_MS: '70000' });
    expect(longer.SHUTDOWN_GRACE_MS).toBe(70_000);
  });

  it('timestamps with TSA_URLS in order, off when empty except in production, where they are required', () => {
    expect(timestampSettings(loadPdfSignerConfig({}))).toBeUndefined();
    expect(timestampSettings(loadPdfSignerConfig({ TSA_URLS: ' , ' }))).toBeUndefined();
    expect(
      timestampSettings(
        loadPdfSignerConfig({ TSA_URLS: 'http://timestamp.digicert.com, https://freetsa.org/tsr' }),
      ),
    ).toEqual({
      urls: ['http://timestamp.digicert.com', 'https://freetsa.org/tsr'],
      timeoutMs: 5_000,
      maxTokenBytes: 12_288,
    });
    expect(() => loadPdfSignerConfig({ NODE_ENV: 'production' })).toThrow(/TSA_URLS: required in production/);
    expect(
      loadPdfSignerConfig({ NODE_ENV: 'production', TSA_URLS: 'http://timestamp.sectigo.com' }).TSA_URLS,
    ).toEqual(['http://timestamp.sectigo.com']);
    expect(() => loadPdfSignerConfig({ TSA_URLS: 'ftp://tsa.example' })).toThrow(/TSA_URLS/);
    // Three TSAs of 5 s each may take 15 s: half of the 30 s job budget is the most they may use.
    expect(() =>
      loadPdfSignerConfig({ TSA_URLS: 'http://a.example,http://b.example,http://c.example' }),
    ).toThrow(/TSA_TIMEOUT_MS/);
  });

  it('wants a key and its certificate together', () => {
    expect(() => loadPdfSignerConfig({ SIGNING_KEY_PEM: 'k' })).toThrow(ConfigError);
    expect(() => loadPdfSignerConfig({ SIGNING_CERT_FILE: '/c.pem' })).toThrow(/SIGNING_KEY_PEM/);
    expect(() =>
      loadPdfSignerConfig({ SIGNING_KEY_PEM: 'k', SIGNING_KEY_FILE: 'f', SIGNING_CERT_PEM: 'c' }),
    ).toThrow(/not both/);
  });

  it('restores line breaks of PEM text written with \\n escapes', () => {
    const config = loadPdfSignerConfig({ SIGNING_KEY_PEM: 'a\\nb', SIGNING_CERT_PEM: 'c\nd' });
    expect(readSigningMaterial(config)).toEqual({
      keyPem: 'a\nb',
      certPem: 'c\nd',
      keyPassphrase: undefined,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { makeEncryptedPdf, makePdf } from '@esign/testing';
import { isQpdfAvailable, repairPdf } from './repair-pdf';

describe('repairPdf (qpdf)', () => {
  it('is available on this machine, as the service image installs it', async () => {
    expect(await isQpdfAvailable()).toBe(true);
  });

  it('decrypts a PDF that opens without a password', async () => {
    const result = await repairPdf(await makeEncryptedPdf());
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(result.bytes.includes('/Encrypt')).toBe(false);
    }
  });

  it('says when a password is needed', async () => {
    expect(await repairPdf(await makeEncryptedPdf({ userPassword: 'open' }))).toEqual({
      ok: false,
      failure: 'password',
    });
  });

  it('says when there is nothing to recover', async () => {
    expect(await repairPdf(Buffer.from('%PDF-1.7\nnothing here\n%%EOF\n'))).toEqual({
      ok: false,
      failure: 'unreadable',
    });
  });

  it('stops qpdf when its output passes the cap, and when it takes too long', async () => {
    const pdf = await makePdf({ pages: 20, text: 'long' });
    expect(await repairPdf(pdf, { maxBytes: 1000 })).toEqual({ ok: false, failure: 'too-large' });
    expect(await repairPdf(pdf, { timeoutMs: 1 })).toEqual({ ok: false, failure: 'timeout' });
  });
});

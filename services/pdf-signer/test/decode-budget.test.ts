import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { makeInflatingPdf, makePng, pdfInfo } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';
import { MAX_DECODED_BYTES } from '../src/domain/document/load-pdf';

let signer: Signer;
let png: string;

beforeAll(async () => {
  signer = await createSigner({ warn: () => undefined });
  png = (await makePng()).toString('base64');
});

const input = (bytes: Buffer): SignInput => ({
  bytes,
  kind: 'pdf',
  fileName: 'bomb.pdf',
  signature: { mode: 'draw', imageBase64: png },
  positions: [{ x: 10, y: 10, page: 0, width: 20 }],
  signer: { name: 'Mallory', email: 'mallory@example.com', ipAddress: '203.0.113.9', userAgent: 'Test/1.0' },
  receivedAt: '2026-11-21T10:00:00.000Z',
});

describe('what parsing an upload may inflate', () => {
  it('signs a document whose object stream inflates within the budget', async () => {
    const pdf = await makeInflatingPdf(8 * 1024 * 1024);
    const signed = await signer.sign(input(pdf));
    expect((await pdfInfo(signed.bytes)).Pages).toBe('2');
  });

  it('refuses a decompression bomb quickly, without inflating it, and signs the next document', async () => {
    const bomb = await makeInflatingPdf(4 * MAX_DECODED_BYTES);
    expect(bomb.length).toBeLessThan(MAX_DECODED_BYTES / 100);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const err = await signer.sign(input(bomb)).catch((e: unknown) => e);
    const ms = performance.now() - started;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect((err as Error).message).toMatch(/inflate to more than 128 MB/);
    // Stopped at the budget: far from the 512 MB the bomb inflates to, in time and in memory.
    expect(ms).toBeLessThan(5000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(3 * MAX_DECODED_BYTES);

    const next = await signer.sign(input(await makeInflatingPdf(1024)));
    expect(next.pageCount).toBe(2);
  });
});

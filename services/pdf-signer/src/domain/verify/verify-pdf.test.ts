import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleSigner } from '../assemble-signer';
import { verifyPdf } from './verify-pdf';

let signed: Buffer;

beforeAll(async () => {
  const signer = await assembleSigner({ warn: () => undefined });
  const doc = await PDFDocument.create();
  doc.addPage([300, 300]);
  const result = await signer.sign({
    bytes: Buffer.from(await doc.save()),
    kind: 'pdf',
    fileName: 'contract.pdf',
    signature: { mode: 'type', typedName: 'Ada Lovelace', color: '#1e3a8a' },
    positions: [{ x: 10, y: 80, page: 0, width: 20 }],
    signer: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      ipAddress: '198.51.100.7',
      userAgent: 'Test/1.0',
    },
    receivedAt: '2026-11-21T10:00:00.000Z',
  });
  signed = result.bytes;
});

/**
 * The signed file with the signingTime attribute's UTCTime rewritten in place inside the hex
 * /Contents (same length, so the byte range still fits): `YYMMDDHHMMSSZ` becomes `text`.
 */
const withSigningTime = (text: string): Buffer => {
  // Attribute { id-signingTime, SET { UTCTime (13 bytes) } }, as hex in /Contents.
  const prefix = '06092a864886f70d01090531' + '0f170d';
  const file = signed.toString('latin1');
  const at = file.toLowerCase().indexOf(prefix);
  expect(at).toBeGreaterThan(0);
  const start = at + prefix.length;
  return Buffer.from(
    file.slice(0, start) + Buffer.from(text, 'latin1').toString('hex') + file.slice(start + 26),
    'latin1',
  );
};

describe('verifyPdf', () => {
  it('reads the signing time from the signature', () => {
    const [report] = verifyPdf(signed).signatures;
    expect(report?.cryptographicallyValid).toBe(true);
    expect(report?.signingTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
  });

  it('gives a verdict on a signature whose signing time cannot be read, instead of failing', () => {
    const claimed = verifyPdf(signed).signatures[0]?.signingTime;
    // An offset where DER wants Z: the shared reader refuses it; the report carries on without it.
    const report = verifyPdf(withSigningTime('261121164005+')).signatures[0];
    expect(report).toMatchObject({
      digestMatches: true,
      signatureVerifies: false,
      cryptographicallyValid: false,
      problems: ["the signature value does not verify with the certificate's key"],
    });
    // The time the signature dictionary claims (/M), which is the same second here.
    expect(report?.signingTime).toBe(claimed);
  });
});

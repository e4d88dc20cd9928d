/**
 * What issue 12 adds to every 1-page sign, in CPU: the same signer signs the same document as before
 * (PAdES B-T, no verification address) and as the service does by default now (B-LT: the DSS update;
 * the audit page's verification address and QR code), interleaved in rounds so that a noisy machine
 * weighs on both alike. No timestamps (the TSA round trip is not CPU of ours). Run by hand:
 *
 *   node --import tsx services/pdf-signer/scripts/measure-proof-cost.ts
 */
import { makePdf, makePng } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput } from '../src/index';

const signer = await createSigner({ warn: () => undefined });
const png = (await makePng()).toString('base64');
const pdf = await makePdf();
const input = (extra: Partial<SignInput>): SignInput => ({
  bytes: Buffer.from(pdf),
  kind: 'pdf',
  fileName: 'contract.pdf',
  signature: { mode: 'draw', imageBase64: png },
  positions: [{ x: 10, y: 80, page: 0, width: 20 }],
  signer: { name: 'Ada Lovelace', email: 'ada@example.com', ipAddress: '198.51.100.7', userAgent: 'x' },
  receivedAt: new Date().toISOString(),
  ...extra,
});
const variants: Record<string, Partial<SignInput>> = {
  'B-T, no verification address (before)': {},
  'B-T, address and QR code': { verifyBaseUrl: 'https://esign.example.com' },
  'B-LT, no address': { padesLevel: 'B-LT' },
  'B-LT, address and QR code (now)': { padesLevel: 'B-LT', verifyBaseUrl: 'https://esign.example.com' },
};
const ROUNDS = 12;
const PER_ROUND = 25;
for (let i = 0; i < 100; i++) for (const v of Object.values(variants)) await signer.sign(input(v));
const total = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, v] of Object.entries(variants)) {
    const start = process.cpuUsage();
    for (let i = 0; i < PER_ROUND; i++) await signer.sign(input(v));
    const used = process.cpuUsage(start);
    total.set(name, (total.get(name) ?? 0) + (used.user + used.system) / 1000);
  }
}
for (const [name, ms] of total) {
  console.log(`${name.padEnd(42)} ${(ms / (ROUNDS * PER_ROUND)).toFixed(2)} ms CPU per 1-page sign`);
}

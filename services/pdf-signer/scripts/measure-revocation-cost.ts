/**
 * What revocation data adds to every 1-page B-LT sign, in CPU: two signers with the same certificate
 * (issued by a throwaway openssl CA whose OCSP responder runs locally), one without revocation data
 * (the DSS holds the certificates only: before) and one with it (the DSS holds the OCSP response too:
 * now), interleaved in rounds (alternating which goes first) so that a noisy machine weighs on both alike. No timestamps. The fetch
 * itself happens at start-up and in the background, not per sign. Run by hand:
 *
 *   node --import tsx services/pdf-signer/scripts/measure-revocation-cost.ts
 */
import { makePdf, makePng, startTestPki } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';

const pki = await startTestPki();
const signing = { keyPem: pki.certs.good.keyPem, certPem: `${pki.certs.good.certPem}${pki.caCertPem}` };
const signers: Record<string, Signer> = {
  'B-LT, certificates only (before)': await createSigner({ signing, warn: () => undefined }),
  'B-LT, certificates and OCSP response (now)': await createSigner({
    signing,
    revocation: { timeoutMs: 2_000 },
    warn: () => undefined,
  }),
};
const png = (await makePng()).toString('base64');
const pdf = await makePdf();
const input = (): SignInput => ({
  bytes: Buffer.from(pdf),
  kind: 'pdf',
  fileName: 'contract.pdf',
  signature: { mode: 'draw', imageBase64: png },
  positions: [{ x: 10, y: 80, page: 0, width: 20 }],
  signer: { name: 'Ada Lovelace', email: 'ada@example.com', ipAddress: '198.51.100.7', userAgent: 'x' },
  receivedAt: new Date().toISOString(),
  padesLevel: 'B-LT',
  verifyBaseUrl: 'https://esign.example.com',
});
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const PER_ROUND = 20;
for (let i = 0; i < 60; i++) for (const signer of Object.values(signers)) await signer.sign(input());
const total = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.entries(signers);
  if (round % 2 === 1) order.reverse();
  for (const [name, signer] of order) {
    const start = process.cpuUsage();
    for (let i = 0; i < PER_ROUND; i++) await signer.sign(input());
    const used = process.cpuUsage(start);
    total.set(name, (total.get(name) ?? 0) + (used.user + used.system) / 1000);
  }
}
for (const [name, ms] of total) {
  console.log(`${name.padEnd(44)} ${(ms / (ROUNDS * PER_ROUND)).toFixed(2)} ms CPU per 1-page sign`);
}
for (const signer of Object.values(signers)) signer.revocation?.close();
await pki.stop();

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, pdfSig, pdfText } from '@esign/testing';
import { DEFAULT_SIGNER, startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

let sut: TestSigner;
beforeAll(async () => {
  sut = await startTestSigner();
});
afterAll(async () => {
  await sut?.stop();
});

const repeat = (pattern: string, length: number) => {
  const chars = [...pattern];
  return Array.from({ length }, (_, i) => chars[i % chars.length] ?? '').join('');
};
const squeeze = (text: string) => text.replace(/\s+/gu, '');

describe('audit page text of any length', () => {
  it('signs a 200-character CJK name and a 255-character Japanese file name quickly, the text searchable', async () => {
    const name = repeat('山田太郎東京都千代田区', 200);
    const fileName = `${repeat('株式会社サンプル業務委託契約書最終版', 251)}.pdf`;
    const started = performance.now();
    const { reply, signed } = await sut.sign(await makePdf(), {
      fileName,
      signer: { ...DEFAULT_SIGNER, name },
    });
    const elapsed = performance.now() - started;
    // Before: 3.9 s for the name alone, 7.4 s for a 250-character Japanese file name.
    expect(elapsed).toBeLessThan(2500);
    const auditText = squeeze(await pdfText(signed, reply.pageCount - 1));
    expect(auditText).toContain(squeeze(name));
    expect(auditText).toContain(squeeze(fileName));
    expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
  });

  it('signs a name and a file name of private-use characters (no font has them) quickly, labelled by code point', async () => {
    const started = performance.now();
    const { reply, signed } = await sut.sign(await makePdf(), {
      fileName: '\uE000'.repeat(255),
      signer: { ...DEFAULT_SIGNER, name: '\uE000'.repeat(255) },
    });
    // Before: 24 s (a 200-character name) and 44 s (a 255-character file name).
    expect(performance.now() - started).toBeLessThan(2500);
    const auditText = await pdfText(signed, reply.pageCount - 1);
    expect(auditText).toContain('[U+E000][U+E000]');
    expect(auditText).toContain('jane.doe@example.com');
    expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
  });

  it('signs a 255-character mixed-script name quickly', async () => {
    const name = repeat('Zoë Анна 王小明 محمد דוד 김민준 Γιώργος ', 255).trim();
    const started = performance.now();
    const { reply, signed } = await sut.sign(await makePdf(), { signer: { ...DEFAULT_SIGNER, name } });
    expect(performance.now() - started).toBeLessThan(2500);
    const auditText = await pdfText(signed, reply.pageCount - 1);
    for (const word of ['Zoë', 'Анна', '王小明', '김민준', 'Γιώργος']) expect(auditText).toContain(word);
  });
});

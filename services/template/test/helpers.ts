import { randomUUID } from 'node:crypto';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, type Bus } from '@esign/bus';
import { TemplateGenerate, type TGenerateTemplateReply } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { runPdfTool, startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import { loadTemplateServiceConfig } from '../src/config';
import { startTemplateService, type TemplateService } from '../src/start';

/** The template service running in-process against real NATS and the embedded S3 server. */
export interface TemplateHarness {
  readonly client: Bus;
  readonly blob: BlobStore;
  readonly accountId: string;
  /** `template.generate`, then the stored PDF. */
  generate(
    slug: string,
    fields: Record<string, string>,
  ): Promise<{ reply: TGenerateTemplateReply; pdf: Buffer }>;
  stop(): Promise<void>;
}

export const startHarness = async (): Promise<TemplateHarness> => {
  const natsUrl = await testNatsUrl();
  const s3: TestS3 = await startTestS3();
  const prefix = uniqueBusPrefix('tpl');
  const bucket = 'template-test';
  const sut: TemplateService = await startTemplateService(
    loadTemplateServiceConfig({
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_REGION: s3.region,
      S3_BUCKET: bucket,
      LOG_LEVEL: 'error',
    }),
  );
  const client = await connectBus({
    url: natsUrl,
    name: 'template-test',
    prefix,
    logger: createLogger({ service: 'template-test', level: 'error' }),
    timeoutMs: 20_000,
  });
  const blob = createBlobStore({ ...s3, bucket });
  const accountId = randomUUID();
  return {
    client,
    blob,
    accountId,
    async generate(slug, fields) {
      const reply = await client.request(TemplateGenerate, { accountId, slug, fields });
      return { reply, pdf: await blob.getBuffer(reply.objectKey) };
    },
    async stop() {
      await client.drain();
      await sut.stop();
      await s3.stop();
    },
  };
};

/** Text as pdftotext reads it (reading order, UTF-8), with bidi marks removed and whitespace collapsed. */
export const extractText = async (pdf: Uint8Array, page?: number): Promise<string> => {
  const range = page === undefined ? [] : ['-f', String(page + 1), '-l', String(page + 1)];
  const { code, stdout, stderr } = await runPdfTool(
    'pdftotext',
    [...range, '-enc', 'UTF-8', '{file}', '-'],
    pdf,
  );
  if (code !== 0) throw new Error(`pdftotext failed: ${stderr}`);
  return normalizeText(stdout);
};

/** The text of every page above its footer, pages joined: a value that runs across a page break reads whole. */
export const bodyText = async (pdf: Uint8Array, pageCount: number): Promise<string> => {
  const pages: string[] = [];
  for (let page = 1; page <= pageCount; page++) {
    // pdftotext crops in pixels at 72 dpi, i.e. points: everything above the footer rule.
    const args = ['-f', String(page), '-l', String(page), '-x', '0', '-y', '0', '-W', '596', '-H', '780'];
    const { code, stdout, stderr } = await runPdfTool(
      'pdftotext',
      [...args, '-enc', 'UTF-8', '{file}', '-'],
      pdf,
    );
    if (code !== 0) throw new Error(`pdftotext failed: ${stderr}`);
    pages.push(stdout);
  }
  return normalizeText(pages.join(' '));
};

/** Bidi embedding marks (which pdftotext adds around right-to-left text) out, whitespace collapsed. */
export const normalizeText = (text: string): string =>
  text
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** A word as `pdftotext -bbox` places it, in points from the page's top-left corner. */
export interface WordBox {
  page: number;
  pageWidth: number;
  pageHeight: number;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
  word: string;
}

const attr = (tag: string, name: string): number =>
  Number(new RegExp(`${name}="([^"]+)"`).exec(tag)?.[1] ?? NaN);

/** Every word of the document with its bounding box (`pdftotext -bbox`). */
export const wordBoxes = async (pdf: Uint8Array): Promise<WordBox[]> => {
  const { code, stdout, stderr } = await runPdfTool(
    'pdftotext',
    ['-bbox', '-enc', 'UTF-8', '{file}', '-'],
    pdf,
  );
  if (code !== 0) throw new Error(`pdftotext -bbox failed: ${stderr}`);
  const words: WordBox[] = [];
  let page = -1;
  let pageWidth = 0;
  let pageHeight = 0;
  for (const match of stdout.matchAll(/<page [^>]*>|<word [^>]*>([^<]*)<\/word>/g)) {
    const tag = match[0];
    if (tag.startsWith('<page')) {
      page += 1;
      pageWidth = attr(tag, 'width');
      pageHeight = attr(tag, 'height');
      continue;
    }
    words.push({
      page,
      pageWidth,
      pageHeight,
      xMin: attr(tag, 'xMin'),
      yMin: attr(tag, 'yMin'),
      xMax: attr(tag, 'xMax'),
      yMax: attr(tag, 'yMax'),
      word: match[1] ?? '',
    });
  }
  return words;
};

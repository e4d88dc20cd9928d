import { parseSamples, scrapeMetrics as scrape, type Sample } from '@esign/testing';
import type { TestSigner } from './start-test-signer';

/** GET /metrics of a test signer's operations port: the text and its samples. */
export const scrapeMetrics = async (signer: TestSigner): Promise<{ text: string; samples: Sample[] }> => {
  const text = await scrape(signer.service.healthPort);
  return { text, samples: parseSamples(text) };
};

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WORKER_YOUNG_GENERATION_MB, workerResourceLimits } from './worker-limits';

const limitsInside = async (resourceLimits: ReturnType<typeof workerResourceLimits>) => {
  const worker = new Worker(
    "const { parentPort, resourceLimits } = require('node:worker_threads'); parentPort.postMessage(resourceLimits);",
    { eval: true, resourceLimits },
  );
  try {
    return await new Promise((resolve) => worker.once('message', resolve));
  } finally {
    await worker.terminate();
  }
};

describe('workerResourceLimits', () => {
  it('caps the old generation at the heap limit and sets a 12 MB young generation unless told otherwise', () => {
    expect(WORKER_YOUNG_GENERATION_MB).toBe(12);
    expect(workerResourceLimits(256)).toEqual({ maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 12 });
    expect(workerResourceLimits(512, 24)).toEqual({
      maxOldGenerationSizeMb: 512,
      maxYoungGenerationSizeMb: 24,
    });
    // 0: V8 sizes the young generation itself.
    expect(workerResourceLimits(256, 0)).toEqual({ maxOldGenerationSizeMb: 256 });
  });

  it('is what a worker started with it gets', async () => {
    expect(await limitsInside(workerResourceLimits(256))).toMatchObject({
      maxOldGenerationSizeMb: 256,
      maxYoungGenerationSizeMb: 12,
    });
  });
});

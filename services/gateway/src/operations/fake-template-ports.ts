import { Readable } from 'node:stream';
import { recordingLogger, unexpected } from './fake-world';
import type { TemplatePorts } from './template-ports';

/** Template ports for tests: each answer as the test says, and a record of what happened. */
export interface FakeTemplateWorld {
  readonly ports: TemplatePorts;
  /** Object keys opened and removed, in order. */
  readonly opened: string[];
  readonly removed: string[];
  readonly warnings: string[];
}

export const fakeTemplatePorts = (
  answers: Partial<Pick<TemplatePorts, 'generate' | 'openObject' | 'removeObject'>>,
): FakeTemplateWorld => {
  const opened: string[] = [];
  const removed: string[] = [];
  const { logger, warnings } = recordingLogger();
  const ports: TemplatePorts = {
    generate: answers.generate ?? unexpected('generate'),
    // By default every object opens, with its key as its bytes.
    openObject: (key) => {
      opened.push(key);
      return answers.openObject
        ? answers.openObject(key)
        : Promise.resolve(Readable.from([Buffer.from(key)]));
    },
    removeObject: async (key) => {
      removed.push(key);
      await answers.removeObject?.(key);
    },
    logger,
  };
  return { ports, opened, removed, warnings };
};

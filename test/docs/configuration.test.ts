import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIGURATION_DOC, renderConfiguration, SERVICES } from './configuration';

describe('docs/configuration.md', () => {
  it('is what the config schemas say (run `pnpm docs:config` after changing one)', async () => {
    const committed = await readFile(CONFIGURATION_DOC, 'utf8');
    expect(committed).toBe(await renderConfiguration());
  });

  it('lists every variable of every service', async () => {
    const doc = await renderConfiguration();
    for (const { schema } of SERVICES) {
      for (const name of Object.keys(schema.shape)) expect(doc).toContain(`\`${name}\``);
    }
  });

  it('cannot be made while a variable has no description', async () => {
    const schema = z.object({ DESCRIBED: z.string().describe('has one'), BARE: z.string().default('x') });
    await expect(renderConfiguration([{ name: 'example', schema, summary: 'an example' }])).rejects.toThrow(
      /example: BARE/,
    );
  });
});

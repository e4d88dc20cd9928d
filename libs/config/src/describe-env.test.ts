import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeEnv } from './describe-env';

describe('describeEnv', () => {
  it('reads the name, default, requirement and meaning through optional, default and transform', () => {
    const sut = z.object({
      PORT: z.coerce.number().default(8080).describe('the port'),
      DELAYS_MS: z
        .string()
        .default('1,2')
        .transform((value) => value.split(',').map(Number))
        .describe('delays'),
      URL: z.string().describe('required one'),
      TOKEN: z.string().optional().describe('optional one'),
      FROM: z
        .string()
        .transform((value) => ({ address: value }))
        .default({ address: 'a@b.c' })
        .meta({ description: 'a mailbox', default: 'a@b.c' }),
      BARE: z.string().default(''),
    });

    expect(describeEnv(sut).map(({ field: _field, ...variable }) => variable)).toEqual([
      { name: 'PORT', default: '8080', required: false, description: 'the port' },
      { name: 'DELAYS_MS', default: '1,2', required: false, description: 'delays' },
      { name: 'URL', default: undefined, required: true, description: 'required one' },
      { name: 'TOKEN', default: undefined, required: false, description: 'optional one' },
      { name: 'FROM', default: 'a@b.c', required: false, description: 'a mailbox' },
      { name: 'BARE', default: '', required: false, description: undefined },
    ]);
  });

  it('refuses a default that is not text unless the schema says how to show it', () => {
    const sut = z.object({ LIST: z.array(z.string()).default(['a']).describe('a list') });
    expect(() => describeEnv(sut)).toThrow(/needs \.meta\(\{ default/);
  });
});

import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { ServiceError, type TGenerateTemplateReply, type TGenerateTemplateRequest } from '@esign/contracts';
import { fakeTemplatePorts } from './fake-template-ports';
import { generateTemplate } from './generate-template';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const input: TGenerateTemplateRequest = { accountId: ACCOUNT, slug: 'nda', fields: { partyA: 'Acme Ltd' } };
const generated: TGenerateTemplateReply = {
  objectKey: `generated/${ACCOUNT}/5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10.pdf`,
  fileName: 'nda.pdf',
  size: 4321,
  pageCount: 2,
  positions: [{ x: 60, y: 80, page: 1, width: 30 }],
};

describe('generateTemplate', () => {
  it('streams the PDF the template service stored, and removes it once discarded', async () => {
    const asked: TGenerateTemplateRequest[] = [];
    const world = fakeTemplatePorts({
      generate: (request) => {
        asked.push(request);
        return Promise.resolve(generated);
      },
    });
    const sut = await generateTemplate(world.ports, input);
    expect(asked).toEqual([input]);
    expect(sut).toMatchObject(generated);
    expect(await text(sut.stream)).toBe(generated.objectKey);
    // Kept while the response streams.
    expect(world.removed).toEqual([]);
    sut.discard();
    expect(world.removed).toEqual([generated.objectKey]);
  });

  it('removes the stored PDF when it cannot be opened', async () => {
    const world = fakeTemplatePorts({
      generate: () => Promise.resolve(generated),
      openObject: () => Promise.reject(new ServiceError('unavailable', 'storage down')),
    });
    await expect(generateTemplate(world.ports, input)).rejects.toMatchObject({ code: 'unavailable' });
    expect(world.removed).toEqual([generated.objectKey]);
  });

  it('logs a failed removal instead of failing the response', async () => {
    const world = fakeTemplatePorts({
      generate: () => Promise.resolve(generated),
      removeObject: () => Promise.reject(new Error('storage down')),
    });
    const sut = await generateTemplate(world.ports, input);
    sut.discard();
    await expect.poll(() => world.warnings).toEqual(['could not remove a generated PDF']);
  });

  it('opens and removes nothing when the template service refuses', async () => {
    const world = fakeTemplatePorts({
      generate: () => Promise.reject(new ServiceError('not_found', 'no template', 'slug')),
    });
    await expect(generateTemplate(world.ports, input)).rejects.toMatchObject({ code: 'not_found' });
    expect(world.opened).toEqual([]);
    expect(world.removed).toEqual([]);
  });
});

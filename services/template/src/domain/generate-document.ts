import { randomUUID } from 'node:crypto';
import type { BlobStore } from '@esign/blob';
import { ServiceError, type TGenerateTemplateReply, type TGenerateTemplateRequest } from '@esign/contracts';
import { toFileName } from './file-name';
import type { FontSet } from './fonts';
import { renderDocument } from './render';
import type { TemplateDefinition } from './template';
import { findUndrawable } from './text-runs';
import { validateFields } from './validate-fields';

/** Where generated PDFs are kept until the gateway has streamed them. */
export const GENERATED_PREFIX = 'generated/';

export interface GenerateDeps {
  readonly templates: ReadonlyMap<string, TemplateDefinition>;
  readonly fonts: FontSet;
  readonly blob: Pick<BlobStore, 'put'>;
}

/** Validate the fields, fill the template, render the PDF and store it under `generated/<accountId>/`. */
export const generateDocument = async (
  deps: GenerateDeps,
  request: TGenerateTemplateRequest,
): Promise<TGenerateTemplateReply> => {
  const template = deps.templates.get(request.slug);
  if (!template) {
    throw new ServiceError(
      'not_found',
      `unknown template "${request.slug.slice(0, 60)}"; templates: ${[...deps.templates.keys()].join(', ')}`,
      'slug',
    );
  }
  const fields = validateFields(template, request.fields, {
    findUndrawable: (text) => findUndrawable(text, deps.fonts),
  });
  const rendered = await renderDocument(template.compose(fields), {
    fonts: deps.fonts,
    subject: template.name,
  });
  const objectKey = `${GENERATED_PREFIX}${request.accountId}/${randomUUID()}.pdf`;
  await deps.blob.put(objectKey, Buffer.from(rendered.bytes), { contentType: 'application/pdf' });
  return {
    objectKey,
    fileName: toFileName(template.fileName(fields)),
    size: rendered.bytes.length,
    pageCount: rendered.pageCount,
    positions: rendered.positions,
  };
};

import type { Readable } from 'node:stream';
import type { TGenerateTemplateReply, TGenerateTemplateRequest } from '@esign/contracts';
import type { TemplatePorts } from './template-ports';

/** A filled template ready to stream: its PDF, what the template service said of it, and its clean-up. */
export interface GeneratedTemplate extends TGenerateTemplateReply {
  readonly stream: Readable;
  /**
   * Remove the stored PDF: call once the response is sent or the client is gone. Never rejects (a
   * failure is logged; the object is only for this response).
   */
  readonly discard: () => void;
}

/**
 * Fill a template for one response: the template service renders and stores the PDF, and the gateway
 * streams it from storage. The stored PDF exists for this response only: the caller discards it after
 * streaming, and it is removed here when it cannot be opened.
 */
export const generateTemplate = async (
  ports: TemplatePorts,
  input: TGenerateTemplateRequest,
): Promise<GeneratedTemplate> => {
  const generated = await ports.generate(input);
  const { objectKey } = generated;
  const discard = (): void => {
    ports.removeObject(objectKey).catch((err: unknown) => {
      ports.logger.warn('could not remove a generated PDF', { objectKey, err });
    });
  };
  let stream: Readable;
  try {
    stream = await ports.openObject(objectKey);
  } catch (err) {
    discard();
    throw err;
  }
  return { ...generated, stream, discard };
};

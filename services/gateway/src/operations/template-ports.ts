import type { Readable } from 'node:stream';
import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import {
  TemplateGenerate,
  type TGenerateTemplateReply,
  type TGenerateTemplateRequest,
} from '@esign/contracts';
import type { Logger } from '@esign/telemetry';

/**
 * What filling a template needs from the world: the template service, which renders the PDF into
 * object storage, and object storage to read and remove it. Production wires them to NATS and S3
 * (`createTemplatePorts`); tests pass typed fakes (`fakeTemplatePorts`).
 */
export interface TemplatePorts {
  /** `template.generate`: fill a template; the PDF is stored under the reply's `objectKey`. */
  generate(request: TGenerateTemplateRequest): Promise<TGenerateTemplateReply>;
  /** Read an object of storage as a stream. */
  openObject(key: string): Promise<Readable>;
  /** Remove an object of storage (removing a missing one is not an error). */
  removeObject(key: string): Promise<void>;
  readonly logger: Logger;
}

/** The template ports on the bus and object storage. Built once at start-up. */
export const createTemplatePorts = (deps: {
  bus: Pick<Bus, 'request'>;
  blob: Pick<BlobStore, 'get' | 'remove'>;
  logger: Logger;
}): TemplatePorts => ({
  generate: (request) => deps.bus.request(TemplateGenerate, request),
  openObject: (key) => deps.blob.get(key),
  removeObject: (key) => deps.blob.remove(key),
  logger: deps.logger,
});

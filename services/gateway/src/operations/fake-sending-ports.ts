import { recordingLogger, unexpected } from './fake-world';
import type { SendingPorts, TCreateSigningRequest } from './sending-ports';

/** Sending ports for tests of the workflow: each answer as the test says, and a record of what happened. */
export interface FakeSendingWorld {
  readonly ports: SendingPorts;
  /** Upload keys whose pages were counted. */
  readonly inspected: string[];
  /** Server-side copies, in order. */
  readonly copies: { readonly from: string; readonly to: string; readonly contentType?: string }[];
  /** Object keys removed, in order. */
  readonly removed: string[];
  readonly created: TCreateSigningRequest[];
  /** Messages logged at warn and info level. */
  readonly warnings: string[];
  readonly infos: string[];
}

export const fakeSendingPorts = (
  answers: Partial<
    Pick<
      SendingPorts,
      | 'inspectPdf'
      | 'createSigningRequest'
      | 'signingStatus'
      | 'cancelSigningRequest'
      | 'resendSigningRequest'
      | 'copyObject'
    >
  >,
): FakeSendingWorld => {
  const inspected: string[] = [];
  const copies: { from: string; to: string; contentType?: string }[] = [];
  const removed: string[] = [];
  const created: TCreateSigningRequest[] = [];
  const { logger, infos, warnings } = recordingLogger();
  const ports: SendingPorts = {
    inspectPdf: (uploadKey) => {
      inspected.push(uploadKey);
      return (answers.inspectPdf ?? unexpected('inspectPdf'))(uploadKey);
    },
    createSigningRequest: (request) => {
      created.push(request);
      return (answers.createSigningRequest ?? unexpected('createSigningRequest'))(request);
    },
    signingStatus: answers.signingStatus ?? unexpected('signingStatus'),
    cancelSigningRequest: answers.cancelSigningRequest ?? unexpected('cancelSigningRequest'),
    resendSigningRequest: answers.resendSigningRequest ?? unexpected('resendSigningRequest'),
    // By default every copy succeeds.
    copyObject: async (from, to, options) => {
      await answers.copyObject?.(from, to, options);
      copies.push({ from, to, ...(options?.contentType ? { contentType: options.contentType } : {}) });
    },
    removeObject: (key) => {
      removed.push(key);
      return Promise.resolve();
    },
    logger,
  };
  return { ports, inspected, copies, removed, created, warnings, infos };
};

import type { Readable } from 'node:stream';
import { ServiceError } from '@esign/contracts';
import { findPending } from './sign-through-link';
import type { SigningLinkPorts } from './signing-link-ports';

/** The original PDF of a pending request, to stream to the signing page. */
export interface LinkDocument {
  readonly stream: Readable;
  readonly size: number;
}

/**
 * The original of the request behind a link, for the page to show: `LinkEndedError` once the request
 * ended, `not_found` when its object is gone from storage.
 */
export const openLinkDocument = async (ports: SigningLinkPorts, tokenHash: string): Promise<LinkDocument> => {
  const request = await findPending(ports, tokenHash);
  const size = (await ports.statObject(request.objectKey))?.size;
  if (size === undefined) throw new ServiceError('not_found', 'The document is no longer available.');
  return { stream: await ports.openObject(request.objectKey), size };
};

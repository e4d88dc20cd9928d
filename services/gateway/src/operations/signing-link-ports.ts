import type { Readable } from 'node:stream';
import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import {
  SigningClaim,
  SigningDecline,
  SigningFindByToken,
  SigningRecordView,
  SigningRelease,
} from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';
import type { SigningPorts } from './ports';

/** The request behind a signing link, whatever its status. */
export type TLinkRequest = z.infer<typeof SigningFindByToken.reply>;
export type TRecordViewRequest = z.infer<typeof SigningRecordView.request>;
export type TRecordedView = z.infer<typeof SigningRecordView.reply>;
export type TDeclineRequest = z.infer<typeof SigningDecline.request>;
export type TDeclined = z.infer<typeof SigningDecline.reply>;

/**
 * What the public signing page's operations need from the world, as plain functions: document-store's
 * signing requests found by the hash of a link's token, object storage for the original, and the sign
 * workflow's own ports. Production wires them to NATS and S3 (`createSigningLinkPorts`); tests pass
 * typed fakes (`fakeSigningLinkPorts`). Errors keep their types (`not_found`, `conflict`, …).
 */
export interface SigningLinkPorts {
  /** `signing.find-by-token`: the request behind a link; `not_found` for an unknown or replaced one. */
  findByToken(tokenHash: string): Promise<TLinkRequest>;
  /** `signing.record-view`: the page showed the document; `conflict` when no longer pending. */
  recordView(view: TRecordViewRequest): Promise<TRecordedView>;
  /** `signing.decline`: the recipient declines; `conflict` when no longer pending. */
  decline(decline: TDeclineRequest): Promise<TDeclined>;
  /** `signing.claim`: one submit at a time; `conflict` while another holds the request. */
  claim(tokenHash: string): Promise<void>;
  /** `signing.release`: end a claim after a failed sign workflow. */
  release(tokenHash: string): Promise<void>;
  /** The size of an object of storage, or undefined when it is gone. */
  statObject(key: string): Promise<{ readonly size: number } | undefined>;
  /** Read an object of storage as a stream. */
  openObject(key: string): Promise<Readable>;
  /** Copy an object of storage on the server (no byte passes through the gateway). */
  copyObject(sourceKey: string, destKey: string, options?: { contentType?: string }): Promise<void>;
  /** The sign workflow's ports: signing through a link is that workflow with the recipient as signer. */
  readonly signing: SigningPorts;
  readonly logger: Logger;
}

/** The signing-link ports on the bus and object storage. Built once at start-up. */
export const createSigningLinkPorts = (deps: {
  bus: Pick<Bus, 'request'>;
  blob: Pick<BlobStore, 'stat' | 'get' | 'copy'>;
  signing: SigningPorts;
  logger: Logger;
}): SigningLinkPorts => ({
  findByToken: (tokenHash) => deps.bus.request(SigningFindByToken, { tokenHash }),
  recordView: (view) => deps.bus.request(SigningRecordView, view),
  decline: (decline) => deps.bus.request(SigningDecline, decline),
  claim: async (tokenHash) => void (await deps.bus.request(SigningClaim, { tokenHash })),
  release: async (tokenHash) => void (await deps.bus.request(SigningRelease, { tokenHash })),
  statObject: (key) => deps.blob.stat(key),
  openObject: (key) => deps.blob.get(key),
  copyObject: (sourceKey, destKey, options) => deps.blob.copy(sourceKey, destKey, options),
  signing: deps.signing,
  logger: deps.logger,
});

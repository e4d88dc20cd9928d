import { Readable } from 'node:stream';
import { ServiceError } from '@esign/contracts';
import { fakeSigningPorts, type FakeSigningWorld } from './fake-signing-ports';
import { recordingLogger, unexpected } from './fake-world';
import type {
  SigningLinkPorts,
  TDeclineRequest,
  TLinkRequest,
  TRecordViewRequest,
} from './signing-link-ports';

/** Signing-link ports for tests: each answer as the test says, and a record of what happened. */
export interface FakeSigningLinkWorld {
  readonly ports: SigningLinkPorts;
  /** The sign workflow's fake world, which signing through a link goes through. */
  readonly signing: FakeSigningWorld;
  readonly views: TRecordViewRequest[];
  readonly declines: TDeclineRequest[];
  /** Token hashes claimed and released, in order. */
  readonly claimed: string[];
  readonly released: string[];
  /** Server-side copies, in order. */
  readonly copies: { readonly from: string; readonly to: string }[];
  /** Object keys opened, in order. */
  readonly opened: string[];
  readonly infos: string[];
  readonly warnings: string[];
}

export const fakeSigningLinkPorts = (
  answers: Partial<Pick<SigningLinkPorts, 'recordView' | 'decline' | 'claim' | 'release'>> & {
    /** The requests behind links, by token hash, as found now (none found: `not_found`). */
    readonly links?: Readonly<Record<string, TLinkRequest>>;
    /** Objects in storage, by key, with their bytes (default: none). */
    readonly objects?: Readonly<Record<string, string>>;
    readonly signing?: Parameters<typeof fakeSigningPorts>[0];
  },
): FakeSigningLinkWorld => {
  const views: TRecordViewRequest[] = [];
  const declines: TDeclineRequest[] = [];
  const claimed: string[] = [];
  const released: string[] = [];
  const copies: { from: string; to: string }[] = [];
  const opened: string[] = [];
  const signing = fakeSigningPorts(answers.signing ?? {});
  const { logger, infos, warnings } = recordingLogger();
  const objects = answers.objects ?? {};
  const ports: SigningLinkPorts = {
    findByToken: (tokenHash) => {
      const found = answers.links?.[tokenHash];
      return found ? Promise.resolve(found) : Promise.reject(new ServiceError('not_found', 'no such link'));
    },
    recordView: (view) => {
      views.push(view);
      return (answers.recordView ?? unexpected('recordView'))(view);
    },
    decline: (decline) => {
      declines.push(decline);
      return (answers.decline ?? unexpected('decline'))(decline);
    },
    claim: async (tokenHash) => {
      await answers.claim?.(tokenHash);
      claimed.push(tokenHash);
    },
    release: async (tokenHash) => {
      released.push(tokenHash);
      await answers.release?.(tokenHash);
    },
    statObject: (key) => {
      const bytes = objects[key];
      return Promise.resolve(bytes === undefined ? undefined : { size: Buffer.byteLength(bytes) });
    },
    openObject: (key) => {
      opened.push(key);
      const bytes = objects[key];
      return bytes === undefined
        ? Promise.reject(new ServiceError('not_found', `no object ${key}`))
        : Promise.resolve(Readable.from([Buffer.from(bytes)]));
    },
    copyObject: (from, to) => {
      copies.push({ from, to });
      return Promise.resolve();
    },
    signing: signing.ports,
    logger,
  };
  return { ports, signing, views, declines, claimed, released, copies, opened, infos, warnings };
};

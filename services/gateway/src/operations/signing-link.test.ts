import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { signedReply } from './fake-world';
import { declineThroughLink } from './decline-through-link';
import { fakeSigningLinkPorts } from './fake-signing-link-ports';
import { openLinkDocument } from './open-link-document';
import { recordLinkView } from './record-link-view';
import {
  findLink,
  findPending,
  LinkEndedError,
  signThroughLink,
  UNKNOWN_LINK_MESSAGE,
  type SignThroughLinkInput,
} from './sign-through-link';
import type { TLinkRequest } from './signing-link-ports';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const HASH = 'e'.repeat(64);
const UNKNOWN = 'f'.repeat(64);
const ORIGINAL = `pending/${ACCOUNT}/5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10.pdf`;
const pending: TLinkRequest = {
  sendId: `send_${'A'.repeat(24)}`,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  accountId: ACCOUNT,
  status: 'pending',
  recipientName: 'Ada Lovelace',
  recipientEmail: 'ada@example.com',
  senderEmail: 'sender@example.com',
  message: null,
  fileName: 'contract.pdf',
  positions: [{ x: 60, y: 80, page: 1, width: 30 }],
  objectKey: ORIGINAL,
  pageCount: 2,
  expiresAt: '2026-12-07T10:00:00.000Z',
  viewedAt: null,
};
const conflict = () => Promise.reject(new ServiceError('conflict', 'not pending'));
const client = { ipAddress: `203.0.113.9${' '.repeat(200)}`, userAgent: 'x'.repeat(2000) };

describe('finding the request behind a link', () => {
  it('answers an unknown link as not_found with words for a person, or as no request for the page', async () => {
    const world = fakeSigningLinkPorts({ links: { [HASH]: pending } });
    await expect(findPending(world.ports, UNKNOWN)).rejects.toMatchObject({
      code: 'not_found',
      message: UNKNOWN_LINK_MESSAGE,
    });
    await expect(findLink(world.ports, UNKNOWN)).resolves.toBeUndefined();
    await expect(findLink(world.ports, HASH)).resolves.toEqual(pending);
  });

  it('answers a link whose request ended as ended, with its status', async () => {
    const world = fakeSigningLinkPorts({ links: { [HASH]: { ...pending, status: 'canceled' } } });
    const ended = await findPending(world.ports, HASH).catch((err: unknown) => err);
    expect(ended).toBeInstanceOf(LinkEndedError);
    expect(ended).toMatchObject({
      status: 'canceled',
      message: expect.stringContaining('canceled') as string,
    });
  });
});

describe('recordLinkView', () => {
  it('records the view with the IP and user agent cut to the contract limits', async () => {
    const world = fakeSigningLinkPorts({
      recordView: () =>
        Promise.resolve({ sendId: pending.sendId, viewedAt: '2026-11-23T10:00:00.000Z', firstView: true }),
    });
    const sut = await recordLinkView(world.ports, { tokenHash: HASH, ...client });
    expect(sut.viewedAt).toBe('2026-11-23T10:00:00.000Z');
    expect(world.views[0]?.tokenHash).toBe(HASH);
    expect(world.views[0]?.ipAddress).toHaveLength(100);
    expect(world.views[0]?.userAgent).toHaveLength(1000);
  });

  it('explains a conflict on a request that ended meanwhile as ended', async () => {
    const world = fakeSigningLinkPorts({
      links: { [HASH]: { ...pending, status: 'expired' } },
      recordView: conflict,
    });
    await expect(recordLinkView(world.ports, { tokenHash: HASH, ...client })).rejects.toMatchObject({
      name: 'LinkEndedError',
      status: 'expired',
    });
  });
});

describe('declineThroughLink', () => {
  it('declines with the reason and logs it', async () => {
    const world = fakeSigningLinkPorts({
      decline: () =>
        Promise.resolve({
          sendId: pending.sendId,
          status: 'declined',
          declinedAt: '2026-11-23T10:00:00.000Z',
        }),
    });
    const sut = await declineThroughLink(world.ports, { tokenHash: HASH, reason: 'Wrong amount', ...client });
    expect(sut.declinedAt).toBe('2026-11-23T10:00:00.000Z');
    expect(world.declines[0]).toMatchObject({ tokenHash: HASH, reason: 'Wrong amount' });
    expect(world.infos).toContain('declined through a signing link');
  });

  it('explains a conflict on a request still pending as another submit in progress', async () => {
    const world = fakeSigningLinkPorts({ links: { [HASH]: pending }, decline: conflict });
    await expect(
      declineThroughLink(world.ports, { tokenHash: HASH, reason: 'Wrong amount', ...client }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('being signed right now') as string,
    });
  });
});

describe('openLinkDocument', () => {
  it('streams the original of a pending request with its size', async () => {
    const world = fakeSigningLinkPorts({ links: { [HASH]: pending }, objects: { [ORIGINAL]: '%PDF-1.7 …' } });
    const sut = await openLinkDocument(world.ports, HASH);
    expect(sut.size).toBe(Buffer.byteLength('%PDF-1.7 …'));
    expect(await text(sut.stream)).toBe('%PDF-1.7 …');
  });

  it('answers not_found when the original is gone from storage, without opening it', async () => {
    const world = fakeSigningLinkPorts({ links: { [HASH]: pending } });
    await expect(openLinkDocument(world.ports, HASH)).rejects.toMatchObject({
      code: 'not_found',
      message: 'The document is no longer available.',
    });
    expect(world.opened).toEqual([]);
  });

  it('does not serve the original of a request that ended', async () => {
    const world = fakeSigningLinkPorts({
      links: { [HASH]: { ...pending, status: 'signed' } },
      objects: { [ORIGINAL]: '%PDF' },
    });
    await expect(openLinkDocument(world.ports, HASH)).rejects.toMatchObject({ status: 'signed' });
    expect(world.opened).toEqual([]);
  });
});

describe('signThroughLink', () => {
  const signed = signedReply(ACCOUNT, pending.auditId);
  const input: SignThroughLinkInput = {
    token: { hash: HASH },
    signature: { mode: 'type', typedName: 'Ada Lovelace', color: '#1e3a8a' },
    signerName: 'Ada Lovelace',
    ipAddress: '203.0.113.9',
    userAgent: 'Firefox',
    receivedAt: '2026-11-23T10:00:00.000Z',
    deadline: Date.now() + 60_000,
  };

  it('claims the request, signs a server-side copy of its original with its audit ID, and keeps the claim', async () => {
    const world = fakeSigningLinkPorts({
      links: { [HASH]: pending },
      signing: { signPdf: () => Promise.resolve(signed), recordDocument: () => Promise.resolve() },
    });
    const sut = await signThroughLink(world.ports, input);
    expect(sut.auditId).toBe(pending.auditId);
    expect(world.claimed).toEqual([HASH]);
    expect(world.copies).toEqual([{ from: ORIGINAL, to: world.signing.signRequests[0]?.uploadKey }]);
    expect(world.copies[0]?.to).toMatch(/^uploads\//);
    expect(world.signing.signRequests[0]?.auditId).toBe(pending.auditId);
    expect(world.signing.records[0]).toMatchObject({
      signerName: 'Ada Lovelace',
      signingRequest: { sendId: pending.sendId, tokenHash: HASH },
    });
    expect(world.released).toEqual([]);
    expect(world.infos).toContain('signed through a signing link');
  });

  it('releases the claim when signing fails, so that the recipient can try again', async () => {
    const world = fakeSigningLinkPorts({
      links: { [HASH]: pending },
      signing: { signPdf: () => Promise.reject(new ServiceError('unavailable', 'signer down')) },
    });
    await expect(signThroughLink(world.ports, input)).rejects.toMatchObject({ code: 'unavailable' });
    expect(world.released).toEqual([HASH]);
  });

  it('explains a claim refused because the request ended meanwhile as ended, and signs nothing', async () => {
    const links: Record<string, TLinkRequest> = { [HASH]: pending };
    const world = fakeSigningLinkPorts({
      links,
      claim: () => {
        links[HASH] = { ...pending, status: 'declined' };
        return conflict();
      },
    });
    await expect(signThroughLink(world.ports, input)).rejects.toMatchObject({
      name: 'LinkEndedError',
      status: 'declined',
    });
    expect(world.copies).toEqual([]);
    expect(world.released).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import { UPLOAD_PREFIX } from '@esign/blob';
import { ServiceError, type TSignature, type TSigningStatus } from '@esign/contracts';
import { signDocument, type SignedDocument } from './sign-document';
import type { SigningLinkPorts, TLinkRequest } from './signing-link-ports';

/** What the page says about a link that no longer signs anything (answered 410). */
export const ENDED_MESSAGES: Record<Exclude<TSigningStatus, 'pending'>, string> = {
  signed: 'This document has already been signed. The link cannot be used again.',
  declined: 'This request was declined. The link cannot be used again.',
  canceled: 'The sender canceled this request. The link no longer works.',
  expired: 'This link has expired. Ask the sender to send the document again.',
};

/** A link that ended (signed, declined, canceled, expired): HTTP 410 with its message. */
export class LinkEndedError extends Error {
  constructor(readonly status: Exclude<TSigningStatus, 'pending'>) {
    super(ENDED_MESSAGES[status]);
    this.name = 'LinkEndedError';
  }
}

export const UNKNOWN_LINK_MESSAGE =
  'This signing link is not valid. Check that you opened the whole link from the most recent email.';

/** The request behind a link: `not_found` for an unknown or replaced link. */
export const findByToken = (ports: SigningLinkPorts, tokenHash: string): Promise<TLinkRequest> =>
  ports.findByToken(tokenHash).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'not_found') {
      throw new ServiceError('not_found', UNKNOWN_LINK_MESSAGE);
    }
    throw err;
  });

/** The request behind a link, or undefined for an unknown or replaced link (the page says so). */
export const findLink = (ports: SigningLinkPorts, tokenHash: string): Promise<TLinkRequest | undefined> =>
  findByToken(ports, tokenHash).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'not_found') return undefined;
    throw err;
  });

/** The request behind a link that can still be signed; `LinkEndedError` otherwise. */
export const findPending = async (ports: SigningLinkPorts, tokenHash: string): Promise<TLinkRequest> => {
  const request = await findByToken(ports, tokenHash);
  if (request.status !== 'pending') throw new LinkEndedError(request.status);
  return request;
};

/**
 * A `conflict` from document-store on a link: the request ended meanwhile (410), or another submit
 * holds it (a second tab, a double click: 409 with words a person understands).
 */
export const explainConflict = async (
  ports: SigningLinkPorts,
  tokenHash: string,
  err: unknown,
): Promise<never> => {
  if (!(err instanceof ServiceError) || err.code !== 'conflict') throw err;
  const now = await findByToken(ports, tokenHash).catch(() => undefined);
  if (now && now.status !== 'pending') throw new LinkEndedError(now.status);
  throw new ServiceError(
    'conflict',
    'This document is being signed right now (in another tab or window, or by a second click). Wait a moment, then reload the page to see the result.',
  );
};

export interface SignThroughLinkInput {
  readonly token: { readonly hash: string };
  readonly signature: TSignature;
  /** The name the recipient confirmed on the page. */
  readonly signerName: string;
  readonly ipAddress: string;
  readonly userAgent: string;
  readonly receivedAt: string;
  readonly deadline: number;
}

/**
 * Sign a signing request from its page, through the same sign workflow as POST /api/v1/sign: claim
 * the request (one submit at a time), copy its original from `pending/` to an upload (server-side) (the signer
 * reads and deletes only uploads), sign with the request's reserved audit ID and the recipient as
 * signer (their IP and user agent in the audit trail), and record the document, which completes the
 * request. On failure the claim is released so that the recipient can try again at once; a
 * `conflict` on the way is explained (the request ended meanwhile: `LinkEndedError`).
 */
export const signThroughLink = async (
  ports: SigningLinkPorts,
  input: SignThroughLinkInput,
): Promise<SignedDocument> => {
  const signed = await signClaimed(ports, input).catch((err: unknown) =>
    explainConflict(ports, input.token.hash, err),
  );
  ports.logger.info('signed through a signing link', { auditId: signed.auditId });
  return signed;
};

const signClaimed = async (ports: SigningLinkPorts, input: SignThroughLinkInput): Promise<SignedDocument> => {
  const tokenHash = input.token.hash;
  const request = await findPending(ports, tokenHash);
  await ports.claim(tokenHash).catch((err: unknown) => explainConflict(ports, tokenHash, err));
  try {
    const uploadKey = `${UPLOAD_PREFIX}${randomUUID()}`;
    // A server-side copy: the original's bytes never pass through the gateway.
    await ports.copyObject(request.objectKey, uploadKey, { contentType: 'application/octet-stream' });
    return await signDocument(ports.signing, {
      deadline: input.deadline,
      accountId: request.accountId,
      upload: { key: uploadKey, fileName: request.fileName, kind: 'pdf' },
      signature: input.signature,
      positions: request.positions,
      usedPositions: true,
      signer: {
        name: input.signerName,
        email: request.recipientEmail,
        ipAddress: input.ipAddress,
        userAgent: input.userAgent,
      },
      receivedAt: input.receivedAt,
      signingRequest: { sendId: request.sendId, tokenHash, auditId: request.auditId },
    });
  } catch (err) {
    await ports.release(tokenHash).catch((releaseErr: unknown) => {
      ports.logger.warn('could not release a signing claim', { sendId: request.sendId, err: releaseErr });
    });
    throw err;
  }
};

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError, type TActionReply, type TEnvelopeField, type TSignature } from '@esign/contracts';
import type { EnvelopePorts, TEnvelopeLink } from './envelope-ports';
import { requireCodeVerified } from './envelope-code';
import { OutcomeUnknownError } from './sending-ports';

/** Why a link of an envelope no longer does anything (answered 410 with these words). */
export const ENVELOPE_ENDED_MESSAGES = {
  completed: 'Everyone has signed: this envelope is complete. The link cannot be used again.',
  declined: 'This envelope was declined by one of its recipients. The link no longer works.',
  canceled: 'The sender canceled this envelope. The link no longer works.',
  expired: 'This link has expired. Ask the sender to send the document again.',
  acted: 'You have already acted on this document. The link cannot be used again.',
} as const;
export type EnvelopeEnding = keyof typeof ENVELOPE_ENDED_MESSAGES;

/** A link whose envelope ended, or whose recipient already acted: HTTP 410 with its message. */
export class EnvelopeLinkEndedError extends Error {
  constructor(readonly ending: EnvelopeEnding) {
    super(ENVELOPE_ENDED_MESSAGES[ending]);
    this.name = 'EnvelopeLinkEndedError';
  }
}

export const UNKNOWN_ENVELOPE_LINK_MESSAGE =
  'This signing link is not valid. Check that you opened the whole link from the most recent email.';

/** How a link stands: `undefined` while its recipient can act, otherwise why not. */
export const endingOf = (link: TEnvelopeLink): EnvelopeEnding | undefined => {
  if (link.envelopeStatus !== 'pending') return link.envelopeStatus;
  const { status } = link.recipient;
  return status === 'signed' || status === 'approved' || status === 'declined' ? 'acted' : undefined;
};

/** The link's envelope and recipient; `not_found` (with words for a person) for an unknown or replaced link. */
export const findEnvelopeLink = (ports: EnvelopePorts, tokenHash: string): Promise<TEnvelopeLink> =>
  ports.findByToken(tokenHash).catch((err: unknown) => {
    if (err instanceof ServiceError && err.code === 'not_found') {
      throw new ServiceError('not_found', UNKNOWN_ENVELOPE_LINK_MESSAGE);
    }
    throw err;
  });

/** The link of a recipient who can act now; `EnvelopeLinkEndedError` otherwise. */
export const findActingLink = async (ports: EnvelopePorts, tokenHash: string): Promise<TEnvelopeLink> => {
  const link = await findEnvelopeLink(ports, tokenHash);
  const ending = endingOf(link);
  if (ending) throw new EnvelopeLinkEndedError(ending);
  return link;
};

/** A `conflict` from document-store: the envelope ended or the recipient acted meanwhile (410), or it stands. */
const explainConflict = async (ports: EnvelopePorts, tokenHash: string, err: unknown): Promise<never> => {
  if (!(err instanceof ServiceError) || err.code !== 'conflict') throw err;
  const now = await findEnvelopeLink(ports, tokenHash).catch(() => undefined);
  const ending = now && endingOf(now);
  if (ending) throw new EnvelopeLinkEndedError(ending);
  throw err;
};

/** What a signer sends from the page: the adopted signature and initials, and the fields' values by index. */
export interface EnvelopeSignInput {
  readonly tokenHash: string;
  readonly signature: TSignature;
  readonly initials?: TSignature;
  /** Values of the recipient's text and checkbox fields, by the field's index in their list. */
  readonly values: Readonly<Record<string, string | boolean>>;
  readonly ipAddress: string;
  readonly userAgent: string;
  /** When the answer is due (epoch ms). */
  readonly deadline: number;
  /** The signing instant's date for date fields (default: now, as YYYY-MM-DD in UTC). */
  readonly now?: Date;
}

const describe = (field: TEnvelopeField, j: number) =>
  `fields[${j}]${field.label ? ` (${field.label})` : ''}`;

/**
 * Each of the signer's fields with what is drawn in it: the signature and initials they adopted (once,
 * for every such field), the signing date, their name and email as the sender gave them, and the text
 * and checkboxes they filled. A required field left empty is refused, naming it, before anything is
 * signed.
 */
export const fieldValuesFor = (
  link: TEnvelopeLink,
  input: Pick<EnvelopeSignInput, 'initials' | 'values' | 'now'>,
): { field: TEnvelopeField; value?: string | boolean }[] => {
  const date = (input.now ?? new Date()).toISOString().slice(0, 10);
  const { recipient } = link;
  return recipient.fields.map((field, j) => {
    const given = input.values[String(j)];
    switch (field.type) {
      case 'signature':
        return { field };
      case 'initials':
        if (!input.initials) {
          if (field.required) {
            throw new ServiceError(
              'invalid_argument',
              `${describe(field, j)}: please adopt your initials`,
              `fields[${j}]`,
            );
          }
          return { field };
        }
        return { field };
      case 'date':
        return { field, value: date };
      case 'name':
        return { field, value: recipient.name };
      case 'email':
        return { field, value: recipient.email };
      case 'checkbox': {
        const ticked = given === true || given === 'true';
        if (field.required && !ticked) {
          throw new ServiceError(
            'invalid_argument',
            `${describe(field, j)}: this box must be ticked`,
            `fields[${j}]`,
          );
        }
        return { field, value: ticked };
      }
      case 'text': {
        const text = typeof given === 'string' ? given.trim() : (field.value ?? '').trim();
        if (field.required && text === '') {
          throw new ServiceError('invalid_argument', `${describe(field, j)}: required`, `fields[${j}]`);
        }
        return text === '' ? { field } : { field, value: text };
      }
    }
  });
};

/** Longest wait for the envelope's head while another signer of the group appends their revision. */
const busyWaitUntil = (deadline: number) => deadline - 5_000;

/**
 * A signer's step: check their fields, take the envelope's head (waiting while another signer of the
 * same group appends theirs: both succeed, one after the other), have the signer append this signer's
 * revision on top of it (a digital signature of their own, the fields drawn), and record it, which moves
 * the envelope on (the next group's turn, or its completion). On failure the head is released and the
 * unrecorded revision removed.
 */
export const signEnvelopeStep = async (
  ports: EnvelopePorts,
  input: EnvelopeSignInput,
): Promise<TActionReply> => {
  const { tokenHash } = input;
  const link = await findActingLink(ports, tokenHash);
  requireCodeVerified(link);
  if (link.recipient.role !== 'signer') {
    throw new ServiceError('conflict', 'You are asked to approve this document, not to sign it.');
  }
  if (link.recipient.status === 'waiting') {
    throw new ServiceError('conflict', 'It is not your turn to sign yet.');
  }
  const fields = fieldValuesFor(link, input);

  let claimed;
  for (;;) {
    const answer = await ports
      .claim(tokenHash)
      .catch((err: unknown) => explainConflict(ports, tokenHash, err));
    if (answer.outcome === 'claimed') {
      claimed = answer;
      break;
    }
    if (Date.now() + answer.retryAfterMs > busyWaitUntil(input.deadline)) {
      throw new ServiceError(
        'unavailable',
        'Another recipient is signing this document right now: try again in a moment.',
      );
    }
    await sleep(answer.retryAfterMs);
  }

  const targetKey = `envelopes/${claimed.accountId}/${claimed.envelopeId}/${claimed.revision + 1}-${randomUUID()}.pdf`;
  let recorded = false;
  try {
    const revision = await ports.signRevision(
      {
        accountId: claimed.accountId,
        auditId: claimed.auditId,
        sourceKey: claimed.objectKey,
        targetKey,
        fileName: link.fileName,
        signer: {
          name: link.recipient.name,
          email: link.recipient.email,
          ipAddress: input.ipAddress,
          userAgent: input.userAgent,
        },
        signature: input.signature,
        initials: input.initials,
        fields,
        reason: `Signed by ${link.recipient.name} (group ${link.recipient.order})`.slice(0, 200),
      },
      Math.max(1_000, input.deadline - Date.now()),
    );
    const reply = await ports
      .recordRevision({
        tokenHash,
        ipAddress: input.ipAddress,
        userAgent: input.userAgent,
        revision: claimed.revision,
        objectKey: revision.objectKey,
        fileHash: revision.fileHash,
        size: revision.size,
        signedAt: revision.signedAt,
        events: revision.events,
      })
      .catch((err: unknown) => {
        // The record may have been made: the revision may be the envelope's head now; keep it.
        if (err instanceof OutcomeUnknownError) recorded = true;
        return explainConflict(ports, tokenHash, err);
      });
    recorded = true;
    ports.logger.info('envelope revision signed', {
      envelopeId: claimed.envelopeId,
      recipientId: claimed.recipientId,
      revision: claimed.revision + 1,
      completing: reply.completing,
    });
    return reply;
  } finally {
    if (!recorded) {
      await ports.release(tokenHash).catch((err: unknown) => {
        ports.logger.warn('could not release an envelope claim', { envelopeId: claimed.envelopeId, err });
      });
      await ports.removeObject(targetKey).catch(() => undefined);
    }
  }
};

/** An approver approves (no document is changed); refused for a signer. */
export const approveEnvelopeStep = async (
  ports: EnvelopePorts,
  input: { tokenHash: string; ipAddress: string; userAgent: string },
): Promise<TActionReply> => {
  const link = await findActingLink(ports, input.tokenHash);
  requireCodeVerified(link);
  if (link.recipient.role !== 'approver') {
    throw new ServiceError('conflict', 'You are asked to sign this document: approving is for approvers.');
  }
  if (link.recipient.status === 'waiting') throw new ServiceError('conflict', 'It is not your turn yet.');
  return ports.approve(input).catch((err: unknown) => explainConflict(ports, input.tokenHash, err));
};

/** A signer or approver declines with a reason: the envelope ends. */
export const declineEnvelopeStep = async (
  ports: EnvelopePorts,
  input: { tokenHash: string; reason: string; ipAddress: string; userAgent: string },
): Promise<TActionReply> => {
  requireCodeVerified(await findActingLink(ports, input.tokenHash));
  return ports.decline(input).catch((err: unknown) => explainConflict(ports, input.tokenHash, err));
};

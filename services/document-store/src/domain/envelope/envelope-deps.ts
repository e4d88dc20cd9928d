import {
  EnvelopeRecipientTurn,
  ServiceError,
  type TEnvelope,
  type TEnvelopeRecipient,
  type TEnvelopeStatus,
  type TEventRecipient,
  type TRecipientRole,
} from '@esign/contracts';
import type pg from 'pg';
import {
  appendStory,
  envelopeOutboxEntry,
  findEnvelope,
  findLinkTarget,
  updateRecipientStatuses,
  type TEnvelopeAggregate,
  type TEnvelopeLinkRow,
  type TEnvelopeRow,
  type TEnvelopeStoryEntry,
  type TRecipientRow,
  type TRecipientStatusChange,
} from '../../db/envelope-repository';
import type { TOutboxEntry } from '../../db/insert-document-record';
import { insertOutboxEntries, type Queryable } from '../../db/signing-repository';

/** What the envelope operations use: the pool and the clock (the signing requests' clock). */
export interface EnvelopeDeps {
  readonly pool: pg.Pool;
  readonly now: () => Date;
}

/**
 * `conflict` for a send's envelope (`POST /api/v1/send`): its one recipient signs through the send's
 * link and the send's operations; `what` names the refused act.
 */
export const refuseForSend = (e: Pick<TEnvelopeRow, 'sendId'>, what: string): void => {
  if (e.sendId !== null) {
    throw new ServiceError('conflict', `this envelope is a send (${e.sendId}): ${what}`, 'sendId');
  }
};

/** The send whose envelope this is (null for any other envelope); `not_found` for none of the account's. */
export const sendOf = async (
  deps: EnvelopeDeps,
  where: { envelopeId: string; accountId: string },
): Promise<string | null> => {
  const found = await findEnvelope(deps.pool, where, { lock: false });
  if (!found) throw notFound();
  return found.envelope.sendId;
};

/** The status as the outside sees it: a pending envelope past its expiry is expired, swept or not (unless it is being completed). */
export const effectiveStatus = (e: TEnvelopeRow, now: Date): TEnvelopeStatus =>
  e.status === 'pending' && !e.completing && e.expiresAt.getTime() <= now.getTime() ? 'expired' : e.status;

/** Roles that act (people in copy never do). */
export const acts = (r: Pick<TRecipientRow, 'role'>): boolean => r.role === 'signer' || r.role === 'approver';

export const hasActed = (r: TRecipientRow): boolean =>
  r.status === 'signed' || r.status === 'approved' || r.status === 'declined';

/** The group acting now: the lowest order with a signer or approver who has not acted; null when none is left. */
export const actingOrder = (recipients: readonly TRecipientRow[]): number | null => {
  let order: number | null = null;
  for (const r of recipients) {
    if (acts(r) && !hasActed(r) && (order === null || r.orderGroup < order)) order = r.orderGroup;
  }
  return order;
};

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

export const toRecipientView = (r: TRecipientRow): TEnvelopeRecipient => ({
  recipientId: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  order: r.orderGroup,
  status: r.status,
  requireEmailCode: r.requireEmailCode,
  embedded: r.embedded,
  fields: r.fields,
  notifiedAt: iso(r.notifiedAt),
  viewedAt: iso(r.viewedAt),
  actedAt: iso(r.actedAt),
  declineReason: r.declineReason,
  replaces: (r.replaces ?? []).map((p) => ({
    name: p.name,
    email: p.email,
    replacedAt: p.replacedAt.toISOString(),
  })),
});

/** The group acting now as the sender sees it: none once the envelope ended or is being completed. */
export const currentOrderOf = (a: TEnvelopeAggregate, now: Date): number | null =>
  effectiveStatus(a.envelope, now) === 'pending' && !a.envelope.completing ? actingOrder(a.recipients) : null;

export const toEnvelopeView = (a: TEnvelopeAggregate, now: Date): TEnvelope => {
  const e = a.envelope;
  const status = effectiveStatus(e, now);
  return {
    envelopeId: e.id,
    auditId: e.auditId,
    status,
    subject: e.subject,
    message: e.message,
    fileName: e.fileName,
    pageCount: e.pageCount,
    createdAt: e.createdAt.toISOString(),
    expiresAt: e.expiresAt.toISOString(),
    currentOrder: currentOrderOf(a, now),
    revision: e.revision,
    recipients: a.recipients.map(toRecipientView),
    completedAt: iso(e.completedAt),
    declinedAt: iso(e.declinedAt),
    declineReason: e.declineReason,
    ...(e.sendId !== null ? { sendId: e.sendId } : {}),
    canceledAt: iso(e.canceledAt),
    // Not yet swept: it expired at its expiry.
    expiredAt: iso(e.expiredAt) ?? (status === 'expired' ? e.expiresAt.toISOString() : null),
    fileHash: e.fileHash,
  };
};

/** What every envelope event carries. */
export const eventBase = (e: TEnvelopeRow, eventId: string, occurredAt: Date) => ({
  eventId,
  envelopeId: e.id,
  auditId: e.auditId,
  accountId: e.accountId,
  senderEmail: e.senderEmail,
  subject: e.subject,
  message: e.message,
  fileName: e.fileName,
  occurredAt: occurredAt.toISOString(),
});

export const eventRecipient = (r: TRecipientRow): TEventRecipient => ({
  recipientId: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  order: r.orderGroup,
});

/** An outbox entry of an envelope event, `extra` added to the common fields. */
export const envelopeEvent = (
  subject: string,
  envelope: TEnvelopeRow,
  at: Date,
  extra: Record<string, unknown>,
): TOutboxEntry =>
  envelopeOutboxEntry(subject, (eventId) => ({ ...eventBase(envelope, eventId, at), ...extra }));

/** What opening a group's turn writes: the recipients' new statuses, the story's entries, the events. */
export interface TTurnWrites {
  /** The envelope's recipients as they are afterwards. */
  readonly recipients: TRecipientRow[];
  readonly statuses: TRecipientStatusChange[];
  readonly story: TEnvelopeStoryEntry[];
  readonly events: TOutboxEntry[];
}

/**
 * The turn of group `order`: its signers and approvers still waiting become `notified`, each with a
 * story entry, and each that is not embedded gets `events.envelope.recipient-turn` (reason `turn`).
 * Nothing is written: an act writes these with its own (see `finishAct`), `openTurn` alone.
 */
export const planTurn = (aggregate: TEnvelopeAggregate, order: number, now: Date): TTurnWrites => {
  const { envelope } = aggregate;
  const opened: TRecipientRow[] = [];
  const recipients = aggregate.recipients.map((r) => {
    if (r.orderGroup !== order || !acts(r) || r.status !== 'waiting') return r;
    const notified: TRecipientRow = { ...r, status: 'notified', notifiedAt: now };
    opened.push(notified);
    return notified;
  });
  return {
    recipients,
    statuses: opened.map((r) => ({ id: r.id, status: 'notified', notifiedAt: now })),
    story: opened.map((r) => ({
      recipientId: r.id,
      event: 'notified',
      at: now,
      ipAddress: null,
      userAgent: null,
      details: { recipientId: r.id, name: r.name, email: r.email, role: r.role, order: r.orderGroup },
    })),
    events: opened
      .filter((r) => !r.embedded)
      .map((r) =>
        envelopeEvent(EnvelopeRecipientTurn.subject, envelope, now, {
          recipient: eventRecipient(r),
          reason: 'turn',
          expiresAt: envelope.expiresAt.toISOString(),
          requireEmailCode: r.requireEmailCode,
        }),
      ),
  };
};

/** Open the turn of group `order` (see `planTurn`); answers the recipients as they are afterwards. */
export const openTurn = async (
  client: Queryable,
  aggregate: TEnvelopeAggregate,
  order: number,
  now: Date,
): Promise<TRecipientRow[]> => {
  const turn = planTurn(aggregate, order, now);
  await updateRecipientStatuses(client, turn.statuses);
  await insertOutboxEntries(client, turn.events);
  await appendStory(client, aggregate.envelope.id, turn.story);
  return turn.recipients;
};

export const notFound = (what = 'envelope'): ServiceError =>
  new ServiceError('not_found', `${what} not found`);

/** The envelope, its recipients and the recipient a live link belongs to. */
export interface TLinkTarget {
  readonly link: TEnvelopeLinkRow;
  readonly aggregate: TEnvelopeAggregate;
  readonly recipient: TRecipientRow;
}

/**
 * The envelope a live link opens (locked for the transaction when `lock`: every change of an envelope
 * holds its row, so changes of one envelope happen one after the other), with the link's recipient;
 * the link and the recipients are read after the lock. The recipients come without whom they replaced
 * (`replaces`: the sender's views read it). `not_found` for an unknown, revoked or lapsed link.
 */
export const findByLink = async (
  client: Queryable,
  tokenHash: string,
  now: Date,
  options: { lock: boolean },
): Promise<TLinkTarget> => {
  const found = await findLinkTarget(client, tokenHash, now, options);
  const recipient = found?.recipients.find((r) => r.id === found.link.recipientId);
  if (!found || !recipient) throw notFound('envelope link');
  return {
    link: found.link,
    aggregate: { envelope: found.envelope, recipients: found.recipients },
    recipient,
  };
};

/**
 * `conflict` unless the recipient may act now: the envelope pending (not expired, not being
 * completed), the recipient's role one of `roles`, their group acting, and they have not acted.
 */
export const requireCanAct = (
  target: Pick<TLinkTarget, 'aggregate' | 'recipient'>,
  now: Date,
  roles: readonly TRecipientRole[],
): void => {
  const { aggregate, recipient } = target;
  const status = effectiveStatus(aggregate.envelope, now);
  if (status !== 'pending') throw new ServiceError('conflict', `the envelope is ${status}`, 'status');
  if (aggregate.envelope.completing) {
    throw new ServiceError('conflict', 'the envelope is being completed', 'status');
  }
  if (hasActed(recipient)) {
    throw new ServiceError('conflict', `the recipient has already ${recipient.status}`, 'status');
  }
  if (!roles.includes(recipient.role)) {
    throw new ServiceError('conflict', `a recipient with the role ${recipient.role} cannot do this`, 'role');
  }
  if (actingOrder(aggregate.recipients) !== recipient.orderGroup) {
    throw new ServiceError('conflict', "the recipient's turn has not come", 'status');
  }
};

/**
 * Whether a link still needs its one-time code: a `requireEmailCode` recipient's emailed link until its
 * code is verified (an embedded link is opened by the sender's site and needs none).
 */
export const codeRequired = (link: TEnvelopeLinkRow, recipient: TRecipientRow): boolean =>
  recipient.requireEmailCode && link.mode !== 'embedded' && link.codeVerifiedAt === null;

/** `permission_denied` while the link still needs its one-time code (`envelope.verify-code`). */
export const requireCodeVerified = (target: Pick<TLinkTarget, 'link' | 'recipient'>): void => {
  if (codeRequired(target.link, target.recipient)) {
    throw new ServiceError('permission_denied', 'enter the one-time code emailed to you first', 'code');
  }
};

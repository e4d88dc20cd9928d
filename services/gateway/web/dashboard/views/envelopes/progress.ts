import { h } from '../../../shared/dom';
import type { Envelope, EnvelopeRecipient, EnvelopeStatus } from '../../api';
import { formatTime } from '../../ui';

// How an envelope and its recipients stand, in words: shared by the list and the detail.

export const ENVELOPE_STATUS_TEXT: Record<EnvelopeStatus, string> = {
  pending: 'Pending',
  completed: 'Completed',
  declined: 'Declined',
  canceled: 'Canceled',
  expired: 'Expired',
};

export const RECIPIENT_STATUS_TEXT: Record<EnvelopeRecipient['status'], string> = {
  waiting: 'Waiting',
  notified: 'Notified',
  viewed: 'Viewed',
  signed: 'Signed',
  approved: 'Approved',
  declined: 'Declined',
};

export const ROLE_TEXT: Record<EnvelopeRecipient['role'], string> = {
  signer: 'Signer',
  approver: 'Approver',
  cc: 'In copy',
};

export const statusBadge = (status: EnvelopeStatus): HTMLElement =>
  h('span', { class: `badge ${status}` }, ENVELOPE_STATUS_TEXT[status]);

/** The recipient's latest moment: when they acted, else viewed, else were notified; else why not. */
export const latestTime = (recipient: EnvelopeRecipient, envelopeStatus: EnvelopeStatus): string => {
  const at = recipient.actedAt ?? recipient.viewedAt ?? recipient.notifiedAt;
  if (at) return formatTime(at);
  if (envelopeStatus !== 'pending') return 'never reached';
  return recipient.role === 'cc' ? 'gets the completed document' : 'their turn has not come';
};

const acts = (recipient: EnvelopeRecipient): boolean => recipient.role !== 'cc';
const done = (recipient: EnvelopeRecipient): boolean =>
  recipient.status === 'signed' || recipient.status === 'approved';

/** The recipients by group (`order`), groups ascending. */
export const groupsOf = (envelope: Envelope): [number, EnvelopeRecipient[]][] => {
  const groups = new Map<number, EnvelopeRecipient[]>();
  for (const recipient of envelope.recipients) {
    groups.set(recipient.order, [...(groups.get(recipient.order) ?? []), recipient]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b);
};

/**
 * One compact line per group: "Group 1 ✓ 2/2", "Group 2 ▸ 0/1" (acting now), "Group 3 · 0/1"
 * (waiting), each spelled out for screen readers.
 */
export const groupProgress = (envelope: Envelope): HTMLElement =>
  h(
    'ol',
    { class: 'group-progress', 'aria-label': 'Progress by group' },
    ...groupsOf(envelope).map(([order, recipients]) => {
      const acting = recipients.filter(acts);
      const finished = acting.filter(done).length;
      const declined = acting.some((recipient) => recipient.status === 'declined');
      const state = declined
        ? 'declined'
        : acting.length === 0
          ? 'copy'
          : finished === acting.length
            ? 'done'
            : envelope.currentOrder === order
              ? 'current'
              : 'waiting';
      const words = {
        declined: 'declined',
        copy: 'in copy only',
        done: 'done',
        current: 'acting now',
        waiting: 'waiting',
      }[state];
      const mark = { declined: '✗', copy: '✉', done: '✓', current: '▸', waiting: '·' }[state];
      return h(
        'li',
        {
          class: `group ${state}`,
          'aria-label': `Group ${order}: ${finished} of ${acting.length} done, ${words}`,
        },
        h('span', { 'aria-hidden': 'true' }, `${mark} Group ${order}`),
        h('span', { 'aria-hidden': 'true', class: 'group-count' }, `${finished}/${acting.length}`),
      );
    }),
  );

/** Each recipient on one line: name, role, group, status and the latest time. */
export const recipientLines = (envelope: Envelope): HTMLElement =>
  h(
    'ul',
    { class: 'recipient-lines' },
    ...[...envelope.recipients]
      .sort((a, b) => a.order - b.order)
      .map((recipient) =>
        h(
          'li',
          { 'data-recipient': recipient.recipientId },
          h('strong', {}, recipient.name),
          ` · ${ROLE_TEXT[recipient.role]} · group ${recipient.order} · `,
          h('span', { class: `badge r-${recipient.status}` }, RECIPIENT_STATUS_TEXT[recipient.status]),
          h('span', { class: 'hint' }, ` ${latestTime(recipient, envelope.status)}`),
        ),
      ),
  );

import type {
  TEnvelopeCompletedEvent,
  TEnvelopeDeclinedEvent,
  TEnvelopeEndedEvent,
  TEventRecipient,
  TRecipientTurnEvent,
} from '@esign/contracts';
import { file, layout, type TRenderedEmail, type TSignedCopy } from './render-emails';
import { formatUtc, oneLine } from './text';

/** What a signer or an approver is asked to do, in the words the emails use. */
const verb = (role: 'signer' | 'approver') => (role === 'signer' ? 'sign' : 'approve');

const names = (recipients: readonly TEventRecipient[], withEmail: boolean) =>
  recipients.map((r) => (withEmail ? `${oneLine(r.name)} (${r.email})` : oneLine(r.name))).join(', ');

/** The envelope's subject, quoted, as the body names it. */
const envelope = (subject: string) => `"${oneLine(subject)}"`;

/**
 * A recipient's turn: their personal link to sign or approve (a resend replaces the earlier links; a
 * reminder adds one and the earlier ones keep working).
 */
export const renderEnvelopeTurn = (input: {
  event: TRecipientTurnEvent;
  role: 'signer' | 'approver';
  link: string;
  expiresAt: string;
}): TRenderedEmail => {
  const { event, role } = input;
  const reminder = event.reason === 'reminder';
  const linkNote =
    event.reason === 'resend'
      ? '; it replaces the links of earlier emails about this document'
      : reminder
        ? '; the links of earlier emails keep working'
        : '';
  return layout(oneLine(reminder ? `Reminder: ${event.subject}` : event.subject), [
    { p: `Hello ${oneLine(event.recipient.name)},` },
    {
      p: reminder
        ? `${event.senderEmail} is still waiting for you to ${verb(role)} ${file(event.fileName)}.`
        : `${event.senderEmail} asks you to ${verb(role)} ${file(event.fileName)}.`,
    },
    ...(event.message ? [{ userText: event.message, label: `Message from ${event.senderEmail}` }] : []),
    { button: role === 'signer' ? 'Review and sign' : 'Review and approve', href: input.link },
    {
      facts: [
        ['From', event.senderEmail],
        ['Document', oneLine(event.fileName)],
        ['You are asked to', verb(role)],
        ['Link valid until', formatUtc(input.expiresAt)],
      ],
    },
    {
      p:
        `This link is personal and works until ${formatUtc(input.expiresAt)}${linkNote}. ` +
        `Do not forward this email. If you do not want to ${verb(role)}, open the link and choose Decline.`,
    },
  ]);
};

/**
 * A `requireEmailCode` recipient's one-time code, in an email of its own: no link (the link is in the
 * turn's email), a subject of its own, nothing of the sender's message.
 */
export const renderEnvelopeCode = (input: {
  event: { subject: string; senderEmail: string; fileName: string; recipient: TEventRecipient };
  code: string;
  expiresAt: string;
}): TRenderedEmail =>
  layout(oneLine(`Your code for ${input.event.subject}`), [
    { p: `Hello ${oneLine(input.event.recipient.name)},` },
    {
      p: `Your one-time code to open ${file(input.event.fileName)}, sent by ${input.event.senderEmail}, is:`,
    },
    { p: input.code },
    {
      p:
        `Enter it on the page the link in our other email opens. It works once, until ` +
        `${formatUtc(input.expiresAt)}. On that page you can ask for a new code.`,
    },
    { p: 'Never share this code. If you did not open a document from us, ignore this email.' },
  ]);

/** The completed document, to the sender or to one recipient (signer, approver or in copy). */
export const renderEnvelopeCompleted = (input: {
  event: TEnvelopeCompletedEvent;
  to: 'sender' | TEventRecipient;
  copy: TSignedCopy;
}): TRenderedEmail => {
  const { event, copy, to } = input;
  const forSender = to === 'sender';
  const signers = event.recipients.filter((r) => r.role === 'signer');
  const approvers = event.recipients.filter((r) => r.role === 'approver');
  const intro = forSender
    ? `${file(event.fileName)}, which you sent as ${envelope(event.subject)}, is complete: every signer and approver has acted.`
    : `${file(event.fileName)}, sent ${to.role === 'cc' ? 'to you in copy ' : ''}by ${event.senderEmail} as ${envelope(event.subject)}, is complete: every signer and approver has acted. Keep this copy.`;
  return layout(oneLine(`Completed: ${event.fileName}`), [
    { p: forSender ? 'Hello,' : `Hello ${oneLine(to.name)},` },
    { p: intro },
    {
      facts: [
        ...(signers.length > 0 ? [['Signed by', names(signers, forSender)] as const] : []),
        ...(approvers.length > 0 ? [['Approved by', names(approvers, forSender)] as const] : []),
        ['Completed at', formatUtc(event.completedAt)],
        ['Audit ID', event.auditId],
        ['File hash', event.fileHash],
      ],
    },
    copy.attached
      ? { p: 'The completed PDF is attached.' }
      : {
          p: `The completed PDF is too large to attach. Download it here until ${formatUtc(copy.until)}:`,
        },
    ...(copy.attached ? [] : [{ button: 'Download the completed PDF', href: copy.url }]),
  ]);
};

/**
 * A signer or approver declined: the sender (with the decliner's address) and those who had already
 * acted learn who and why. No document: it was never completed.
 */
export const renderEnvelopeDeclined = (input: {
  event: TEnvelopeDeclinedEvent;
  to: 'sender' | TEventRecipient;
}): TRenderedEmail => {
  const { event, to } = input;
  const decliner = event.decliner;
  const who = to === 'sender' ? `${oneLine(decliner.name)} (${decliner.email})` : oneLine(decliner.name);
  const action = decliner.role === 'approver' ? 'approve' : 'sign';
  return layout(oneLine(`Declined: ${event.fileName}`), [
    { p: to === 'sender' ? 'Hello,' : `Hello ${oneLine(to.name)},` },
    {
      p:
        `${who} declined to ${action} ${file(event.fileName)} (${envelope(event.subject)}` +
        `${to === 'sender' ? '' : `, sent by ${event.senderEmail}`}). The envelope has ended: nobody else will be asked to act on it.`,
    },
    { userText: event.reason, label: 'Their reason' },
    { facts: [['Declined at', formatUtc(event.occurredAt)]] },
    ...(to === 'sender'
      ? [{ p: 'To ask again, send a new envelope.' }]
      : [{ p: 'There is nothing for you to do.' }]),
  ]);
};

/** The sender canceled: a recipient whose turn had come learns that their link no longer works. */
export const renderEnvelopeCanceled = (input: {
  event: TEnvelopeEndedEvent;
  to: TEventRecipient;
}): TRenderedEmail => {
  const { event, to } = input;
  return layout(oneLine(`Canceled: ${event.fileName}`), [
    { p: `Hello ${oneLine(to.name)},` },
    {
      p: `${event.senderEmail} canceled ${envelope(event.subject)}, which asked you to ${to.role === 'approver' ? 'approve' : 'sign'} ${file(event.fileName)}. The link you received no longer works, and there is nothing for you to do.`,
    },
  ]);
};

/** The envelope expired before every signer and approver acted: the sender is told who had not. */
export const renderEnvelopeExpired = (event: TEnvelopeEndedEvent): TRenderedEmail =>
  layout(oneLine(`Expired: ${event.fileName}`), [
    { p: 'Hello,' },
    {
      p: `${envelope(event.subject)} (${file(event.fileName)}) expired before every signer and approver had acted. Its links no longer work; send a new envelope to ask again.`,
    },
    {
      facts: [
        ...(event.notify.length > 0 ? [['Still waiting on', names(event.notify, true)] as const] : []),
        ['Expired at', formatUtc(event.occurredAt)],
      ],
    },
  ]);

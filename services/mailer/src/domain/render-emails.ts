import type {
  TSignInLinkRequestedEvent,
  TSigningCanceledEvent,
  TSigningCompletedEvent,
  TSigningDeclinedEvent,
  TSigningExpiredEvent,
  TSigningReminderDueEvent,
  TSigningRequestedEvent,
  TWebhookEndpointDisabledEvent,
} from '@esign/contracts';
import { escapeHtml, formatUtc, oneLine, paragraphsHtml } from './text';

/** What an email says, in both forms. Every piece of outside text is escaped in `html`. */
export interface TRenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** A piece of an email: a paragraph of our text, user text, a button link, or facts. */
type TBlock =
  | { readonly p: string }
  | { readonly userText: string; readonly label: string }
  | { readonly button: string; readonly href: string }
  | { readonly facts: readonly (readonly [string, string])[] };

const SIGNING_FOOTER = 'Sent by eSign. You receive this because of a document sent for signature.';

/** An email of blocks, as plain text and as HTML with every piece escaped. */
export const layout = (
  subject: string,
  blocks: readonly TBlock[],
  footer: string = SIGNING_FOOTER,
): TRenderedEmail => {
  const text: string[] = [];
  const html: string[] = [];
  for (const block of blocks) {
    if ('p' in block) {
      text.push(block.p);
      html.push(`<p style="margin:0 0 16px">${escapeHtml(block.p)}</p>`);
    } else if ('userText' in block) {
      text.push(`${block.label}:\n${block.userText.replace(/^/gm, '> ')}`);
      html.push(
        `<p style="margin:0 0 4px;color:#555">${escapeHtml(block.label)}:</p>` +
          `<blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid #ccc;color:#222">${paragraphsHtml(block.userText)}</blockquote>`,
      );
    } else if ('button' in block) {
      text.push(`${block.button}: ${block.href}`);
      html.push(
        `<p style="margin:0 0 16px"><a href="${escapeHtml(block.href)}" style="display:inline-block;padding:10px 18px;background:#1e3a8a;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(block.button)}</a></p>` +
          `<p style="margin:0 0 16px;font-size:12px;color:#555">Or paste this address into your browser: ${escapeHtml(block.href)}</p>`,
      );
    } else {
      text.push(block.facts.map(([k, v]) => `${k}: ${v}`).join('\n'));
      html.push(
        `<table style="margin:0 0 16px;border-collapse:collapse;font-size:14px">${block.facts
          .map(
            ([k, v]) =>
              `<tr><td style="padding:2px 12px 2px 0;color:#555">${escapeHtml(k)}</td><td style="padding:2px 0">${escapeHtml(v)}</td></tr>`,
          )
          .join('')}</table>`,
      );
    }
  }
  return {
    subject,
    text: `${text.join('\n\n')}\n\n-- \n${footer}\n`,
    html:
      `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
      `<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.45;color:#111;max-width:600px;margin:0 auto;padding:24px">` +
      `${html.join('')}<p style="margin:24px 0 0;font-size:12px;color:#777">${escapeHtml(footer)}</p></body></html>`,
  };
};

/** A file name as the emails quote it. */
export const file = (name: string) => `"${oneLine(name, 200)}"`;

/** The request to sign (also when resent), carrying the signing link. */
export const renderSigningRequest = (input: {
  event: TSigningRequestedEvent;
  link: string;
  expiresAt: string;
}): TRenderedEmail => {
  const { event } = input;
  return layout(oneLine(event.subject), [
    { p: `Hello ${oneLine(event.recipientName)},` },
    { p: `${event.senderEmail} asks you to sign ${file(event.fileName)}.` },
    ...(event.message ? [{ userText: event.message, label: `Message from ${event.senderEmail}` }] : []),
    { button: 'Review and sign', href: input.link },
    {
      p:
        `This link is personal and works until ${formatUtc(input.expiresAt)}` +
        `${event.resend ? '; it replaces the links of earlier emails about this document' : ''}. ` +
        'Do not forward this email. If you do not want to sign, open the link and choose Decline.',
    },
  ]);
};

/** A reminder for a request still pending, with a fresh link (earlier links keep working). */
export const renderReminder = (input: {
  event: TSigningReminderDueEvent;
  link: string;
  expiresAt: string;
}): TRenderedEmail => {
  const { event } = input;
  return layout(oneLine(`Reminder: ${event.subject}`), [
    { p: `Hello ${oneLine(event.recipientName)},` },
    { p: `${event.senderEmail} is still waiting for your signature on ${file(event.fileName)}.` },
    ...(event.message ? [{ userText: event.message, label: `Message from ${event.senderEmail}` }] : []),
    { button: 'Review and sign', href: input.link },
    { p: `This link is personal and works until ${formatUtc(input.expiresAt)}. Do not forward this email.` },
  ]);
};

/** The signed PDF: attached, or a download link when it is too large to attach. */
export type TSignedCopy =
  { readonly attached: true } | { readonly attached: false; readonly url: string; readonly until: string };

/** The signed document, to the sender or to the recipient. */
export const renderCompleted = (input: {
  event: TSigningCompletedEvent;
  to: 'sender' | 'recipient';
  copy: TSignedCopy;
}): TRenderedEmail => {
  const { event, copy } = input;
  const who = oneLine(event.recipientName);
  const intro =
    input.to === 'sender'
      ? `${who} (${event.recipientEmail}) signed ${file(event.fileName)}.`
      : `You signed ${file(event.fileName)}, sent to you by ${event.senderEmail}. Keep this copy.`;
  return layout(oneLine(`Signed: ${event.fileName}`), [
    { p: input.to === 'sender' ? 'Hello,' : `Hello ${who},` },
    { p: intro },
    {
      facts: [
        ['Audit ID', event.auditId],
        ['Signed at', formatUtc(event.signedAt)],
        ['File hash', event.fileHash],
      ],
    },
    copy.attached
      ? { p: 'The signed PDF is attached.' }
      : {
          p: `The signed PDF is too large to attach. Download it here until ${formatUtc(copy.until)}:`,
        },
    ...(copy.attached ? [] : [{ button: 'Download the signed PDF', href: copy.url }]),
  ]);
};

/** The recipient declined: the sender gets the reason. */
export const renderDeclined = (event: TSigningDeclinedEvent): TRenderedEmail =>
  layout(oneLine(`Declined: ${event.fileName}`), [
    { p: 'Hello,' },
    {
      p: `${oneLine(event.recipientName)} (${event.recipientEmail}) declined to sign ${file(event.fileName)}.`,
    },
    { userText: event.reason, label: 'Their reason' },
    {
      facts: [
        ['Audit ID', event.auditId],
        ['Declined at', formatUtc(event.declinedAt)],
      ],
    },
  ]);

/** The request expired unsigned: the sender is told. */
export const renderExpired = (event: TSigningExpiredEvent): TRenderedEmail =>
  layout(oneLine(`Expired unsigned: ${event.fileName}`), [
    { p: 'Hello,' },
    {
      p: `${oneLine(event.recipientName)} (${event.recipientEmail}) did not sign ${file(event.fileName)} before the link expired. Send it again to ask once more.`,
    },
    {
      facts: [
        ['Audit ID', event.auditId],
        ['Expired at', formatUtc(event.expiredAt)],
      ],
    },
  ]);

/** The sender canceled: the recipient learns that the link no longer works. */
export const renderCanceled = (event: TSigningCanceledEvent): TRenderedEmail =>
  layout(oneLine(`Canceled: ${event.fileName}`), [
    { p: `Hello ${oneLine(event.recipientName)},` },
    {
      p: `${event.senderEmail} canceled the request to sign ${file(event.fileName)}. The signing link you received no longer works, and there is nothing for you to do.`,
    },
  ]);

/** A one-time link that signs the account's owner in to the dashboard. */
export const renderSignInLink = (input: {
  event: TSignInLinkRequestedEvent;
  link: string;
  expiresAt: string;
}): TRenderedEmail =>
  layout(
    'Your eSign sign-in link',
    [
      { p: 'Hello,' },
      { p: 'Use this link to sign in to your eSign dashboard. It works once.' },
      { button: 'Sign in to eSign', href: input.link },
      { facts: [['Valid until', formatUtc(input.expiresAt)]] },
      { p: 'If you did not ask for it, ignore this email: nobody can sign in without the link.' },
    ],
    'Sent by eSign because a sign-in link was requested for this address.',
  );

/** An endpoint we stopped delivering to: where, why, and how to turn it back on. */
export const renderWebhookDisabled = (input: {
  event: TWebhookEndpointDisabledEvent;
  dashboardLink: string;
}): TRenderedEmail => {
  const { event } = input;
  const url = oneLine(event.url, 300);
  const why =
    event.reason === 'gone'
      ? 'Your receiver answered 410 Gone, which tells us to stop.'
      : `Every delivery to it has failed since ${event.failingSince ? formatUtc(event.failingSince) : 'several days ago'}: timeouts, connection errors or answers other than 2xx.`;
  return layout(
    `Webhook endpoint disabled: ${url}`,
    [
      { p: 'Hello,' },
      { p: `We stopped sending webhook events to ${url}. ${why}` },
      {
        facts: [
          ['Endpoint', url],
          ['Webhook ID', event.webhookId],
          ['Reason', event.reason === 'gone' ? 'the receiver answered 410 Gone' : 'failing for days'],
          ['Disabled at', formatUtc(event.disabledAt)],
        ],
      },
      {
        p:
          'Events that were still waiting are kept, not lost. Once your receiver answers 2xx again, re-enable the endpoint: in the dashboard (Webhooks, this endpoint, Enable), or with PATCH /api/v1/webhooks/' +
          `${event.webhookId} and the body {"enabled": true}. The waiting deliveries then resume.`,
      },
      { button: 'Open the endpoint in the dashboard', href: input.dashboardLink },
    ],
    'Sent by eSign to the owner of the account the webhook endpoint belongs to.',
  );
};

import { MAX_DECLINE_REASON_LENGTH } from '@esign/contracts/constants';
/**
 * The signing page of a link `/s/<token>`. Opening it changes nothing; this script loads the request
 * and the PDF (token in the `X-Signing-Token` header, never in another URL), shows every page with
 * the signature boxes, reports the document viewed once it is on screen, and signs or declines.
 */
import type { Middleware } from 'openapi-fetch';
import type { components } from '../../../../libs/sdk/src/generated/api';
import { byId, h } from '../shared/dom';
import { answerOf, ApiError, createApiClient } from '../shared/http';
import { placeOverlay, renderPdf, type PdfPageView } from '../shared/pdf-view';
import { createSignaturePad, SIGNATURE_ASPECT } from '../shared/signature-pad';

// The request as the signing API answers it (the SDK's types, generated from the OpenAPI document).
// Its sender's message is plain text, shown with textContent only.
type SigningRequest = components['schemas']['SigningRequestView'];
type Position = SigningRequest['positions'][number];
type LinkEnded = components['schemas']['SigningLinkEnded'];

const title = byId('title');
const intro = byId('intro');
const statusLine = byId('status');
const errorBox = byId('error');
const documentView = byId('document');
const panel = byId('sign-panel');
const nameInput = byId<HTMLInputElement>('signer-name');
const signError = byId('sign-error');
const signButton = byId<HTMLButtonElement>('sign-button');
const declineOpen = byId<HTMLButtonElement>('decline-open');
const declineForm = byId<HTMLFormElement>('decline-form');
const declineReason = byId<HTMLTextAreaElement>('decline-reason');
declineReason.maxLength = MAX_DECLINE_REASON_LENGTH;
const declineError = byId('decline-error');
const declineButton = byId<HTMLButtonElement>('decline-button');
const declineClose = byId<HTMLButtonElement>('decline-close');
const done = byId('done');

const token = /^\/s\/([^/?#]+)/.exec(window.location.pathname)?.[1] ?? '';
/** Every call of this page carries the link's token in a header (never in another URL). */
const withToken: Middleware = {
  onRequest({ request }) {
    request.headers.set('X-Signing-Token', token);
  },
};
const client = createApiClient(withToken);

const show = (el: HTMLElement, message: string) => {
  el.textContent = message;
  el.hidden = message === '';
};

/** The link can no longer be used (410) or never could (404): say so and offer nothing to do. */
const finish = (heading: string, message: string) => {
  panel.hidden = true;
  documentView.hidden = heading !== 'Signed' && heading !== 'Declined';
  show(errorBox, '');
  statusLine.textContent = '';
  byId('done-heading').textContent = heading;
  byId('done-message').textContent = message;
  done.hidden = false;
  done.focus();
};

const ENDED_HEADINGS: Record<LinkEnded['status'], string> = {
  signed: 'Already signed',
  declined: 'Request declined',
  canceled: 'Request canceled',
  expired: 'Link expired',
};

const isEndedStatus = (status: unknown): status is LinkEnded['status'] =>
  typeof status === 'string' && Object.hasOwn(ENDED_HEADINGS, status);

/** Why a link ended, as a 410's body says (`status`: signed, declined, canceled or expired). */
const endedStatusOf = (body: unknown): LinkEnded['status'] | undefined =>
  body !== null && typeof body === 'object' && 'status' in body && isEndedStatus(body.status)
    ? body.status
    : undefined;

/** A 404 or 410 ends the page; anything else is a message next to what the user tried. */
const endedBy = (err: unknown): boolean => {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 410) {
    finish(ENDED_HEADINGS[endedStatusOf(err.body) ?? 'expired'], err.message);
    return true;
  }
  if (err.status === 404) {
    finish('Link not valid', err.message);
    return true;
  }
  return false;
};

const messageOf = (err: unknown): string =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please reload the page and try again.';

const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

const loadDocument = (): Promise<ArrayBuffer> =>
  answerOf(client.GET('/signing/api/document', { parseAs: 'arrayBuffer' }));

/** Dashed boxes where the signature goes; each one takes you to the signing panel. */
const placeBoxes = (pages: PdfPageView[], positions: Position[]): HTMLButtonElement[] =>
  positions.flatMap((position, i) => {
    const page = pages[position.page];
    if (!page) return [];
    const box = h(
      'button',
      {
        type: 'button',
        class: 'sig-box',
        'data-position': i,
        'aria-label': `Signature box ${i + 1} on page ${position.page + 1}: go to signing`,
        onclick: () => {
          panel.scrollIntoView({ behavior: 'smooth', block: 'start' });
          pad.focus();
        },
      },
      'Sign here',
    );
    placeOverlay(page, box, {
      x: position.x,
      y: position.y,
      width: position.width,
      aspect: SIGNATURE_ASPECT,
    });
    return [box];
  });

const pad = createSignaturePad(byId('pad'));
let boxes: HTMLButtonElement[] = [];

/** The signature shows in every box as it is drawn or typed. */
pad.onChange(() => {
  const png = pad.toPng();
  for (const box of boxes) {
    box.replaceChildren(png ? h('img', { src: png.dataUrl, alt: '' }) : 'Sign here');
  }
  if (!pad.isEmpty()) show(signError, '');
});

let busy = false;
const setBusy = (value: boolean) => {
  busy = value;
  signButton.disabled = value;
  declineButton.disabled = value;
  declineOpen.disabled = value;
};

signButton.addEventListener('click', () => {
  if (busy) return;
  const signerName = nameInput.value.trim();
  if (!signerName) {
    show(signError, 'Please confirm your full name.');
    nameInput.focus();
    return;
  }
  const signature = pad.value();
  if (!signature) {
    show(signError, 'Please draw or type your signature first.');
    pad.focus();
    return;
  }
  show(signError, '');
  setBusy(true);
  statusLine.textContent = 'Signing… this takes a few seconds.';
  void answerOf(client.POST('/signing/api/sign', { body: { signerName, signature } }))
    .then((signed) => {
      finish(
        'Signed',
        `Thank you, the document is signed (audit ID ${signed.auditId}). A copy of the signed PDF is on its way to ${currentRequest?.recipientEmail ?? 'you'} by email.`,
      );
    })
    .catch((err: unknown) => {
      statusLine.textContent = '';
      if (endedBy(err)) return;
      show(signError, messageOf(err));
      setBusy(false);
    });
});

declineOpen.addEventListener('click', () => {
  declineForm.hidden = false;
  declineReason.focus();
});
declineClose.addEventListener('click', () => {
  declineForm.hidden = true;
  show(declineError, '');
  declineOpen.focus();
});
declineForm.addEventListener('submit', (event) => {
  event.preventDefault();
  if (busy) return;
  const reason = declineReason.value.trim();
  if (!reason) {
    show(declineError, 'Please tell the sender why you decline (a reason is required).');
    declineReason.focus();
    return;
  }
  show(declineError, '');
  setBusy(true);
  void answerOf(client.POST('/signing/api/decline', { body: { reason } }))
    .then(() => finish('Declined', 'You declined to sign. The sender has been told, with your reason.'))
    .catch((err: unknown) => {
      if (endedBy(err)) return;
      show(declineError, messageOf(err));
      setBusy(false);
    });
});

let currentRequest: SigningRequest | undefined;

const start = async () => {
  if (!token) {
    finish('Link not valid', 'This page needs the whole link from your email.');
    return;
  }
  let signing: SigningRequest;
  try {
    signing = await answerOf(client.GET('/signing/api/request'));
  } catch (err) {
    if (!endedBy(err)) show(errorBox, messageOf(err));
    return;
  }
  currentRequest = signing;
  title.textContent = `Sign “${signing.fileName}”`;
  intro.textContent = `${signing.senderEmail} asks ${signing.recipientName} to sign this document. The link works until ${formatDate(signing.expiresAt)}.`;
  if (signing.message) {
    // Text only, as the email shows it: whatever markup it holds is shown, never interpreted.
    byId('sender-message-from').textContent = `Message from ${signing.senderEmail}`;
    byId('sender-message-text').textContent = signing.message;
    byId('sender-message').hidden = false;
  }
  nameInput.value = signing.recipientName;
  pad.typedName = signing.recipientName;
  statusLine.textContent = 'Loading the document…';
  try {
    const bytes = await loadDocument();
    const view = await renderPdf(documentView, { data: bytes });
    boxes = placeBoxes(view.pages, signing.positions);
    documentView.setAttribute('aria-busy', 'false');
    statusLine.textContent = `The document has ${view.pageCount} page${view.pageCount === 1 ? '' : 's'}.`;
  } catch (err) {
    statusLine.textContent = '';
    if (!endedBy(err)) show(errorBox, messageOf(err));
    return;
  }
  panel.hidden = false;
  // Shown: now (and only now) the view is recorded.
  await answerOf(client.POST('/signing/api/view')).catch((err: unknown) => {
    endedBy(err);
  });
};

void start();

/**
 * The signing page of a link `/s/<token>`. Opening it changes nothing; this script loads the request
 * and the PDF (token in the `X-Signing-Token` header, never in another URL), shows every page with
 * the signature boxes, reports the document viewed once it is on screen, and signs or declines. The
 * frame it shares with the envelope page (client, done screen, ended links, acts, decline form) is
 * shared/link-page.ts.
 */
import type { components } from '../../../../libs/sdk/src/generated/api';
import { byId, h } from '../shared/dom';
import { answerOf } from '../shared/http';
import { createLinkClient, createLinkPage, formatDate, show, showSenderMessage } from '../shared/link-page';
import { placeOverlay, type PdfPageView } from '../shared/pdf-view';
import { createSignaturePad, SIGNATURE_ASPECT } from '../shared/signature-pad';

// The request as the signing API answers it (the SDK's types, generated from the OpenAPI document).
// Its sender's message is plain text, shown with textContent only.
type SigningRequest = components['schemas']['SigningRequestView'];
type Position = SigningRequest['positions'][number];
type LinkEnded = components['schemas']['SigningLinkEnded'];

const title = byId('title');
const intro = byId('intro');
const panel = byId('sign-panel');
const nameInput = byId<HTMLInputElement>('signer-name');
const signError = byId('sign-error');
const signButton = byId<HTMLButtonElement>('sign-button');

const token = /^\/s\/([^/?#]+)/.exec(window.location.pathname)?.[1] ?? '';
const client = createLinkClient(token);

const ENDED_HEADINGS: Record<LinkEnded['status'], string> = {
  signed: 'Already signed',
  declined: 'Request declined',
  canceled: 'Request canceled',
  expired: 'Link expired',
};

const linkPage = createLinkPage({
  panel,
  endedHeadings: ENDED_HEADINGS,
  actButtons: [signButton],
  decline: {
    send: (reason) => answerOf(client.POST('/signing/api/decline', { body: { reason } })),
    // The recipient acted on the document: it stays on screen above the done screen.
    declined: () =>
      linkPage.finish('Declined', 'You declined to sign. The sender has been told, with your reason.', true),
  },
});
const { finish, endedBy } = linkPage;

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

signButton.addEventListener('click', () => {
  if (linkPage.isBusy()) return;
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
  linkPage.act({
    call: () => answerOf(client.POST('/signing/api/sign', { body: { signerName, signature } })),
    error: signError,
    working: 'Signing… this takes a few seconds.',
    done: (signed) => {
      finish(
        'Signed',
        `Thank you, the document is signed (audit ID ${signed.auditId}). A copy of the signed PDF is on its way to ${currentRequest?.recipientEmail ?? 'you'} by email.`,
        true,
      );
    },
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
    linkPage.failed(err);
    return;
  }
  currentRequest = signing;
  title.textContent = `Sign “${signing.fileName}”`;
  intro.textContent = `${signing.senderEmail} asks ${signing.recipientName} to sign this document. The link works until ${formatDate(signing.expiresAt)}.`;
  showSenderMessage(signing);
  nameInput.value = signing.recipientName;
  pad.typedName = signing.recipientName;
  const shown = await linkPage.showDocument({
    load: () => answerOf(client.GET('/signing/api/document', { parseAs: 'arrayBuffer' })),
    place: (pages) => {
      boxes = placeBoxes(pages, signing.positions);
    },
  });
  if (!shown) return;
  panel.hidden = false;
  // Shown: now (and only now) the view is recorded.
  await answerOf(client.POST('/signing/api/view')).catch((err: unknown) => {
    endedBy(err);
  });
};

void start();

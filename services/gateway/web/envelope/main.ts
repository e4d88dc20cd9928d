/**
 * The signing page of an envelope link `/e/<token>`. Opening it changes nothing; this script loads
 * who asks what of this recipient and the PDF as it stands (token in the `X-Signing-Token` header,
 * never in another URL), draws every page with this recipient's fields over it, reports the document
 * viewed once it is on screen, and then:
 *   - a signer fills their fields (guided field by field, "N required fields left"), adopts a
 *     signature once (and initials once when they have an initials field) and finishes;
 *   - an approver approves;
 *   - either may decline, with a reason.
 * Everything the sender or the server wrote is shown as text (textContent), never as markup. The frame
 * it shares with the send's signing page (client, done screen, ended links, acts, decline form) is
 * shared/link-page.ts.
 */
import type { components } from '../../../../libs/sdk/src/generated/api';
import { byId, h } from '../shared/dom';
import { answerOf } from '../shared/http';
import {
  createLinkClient,
  createLinkPage,
  formatDate,
  messageOf as linkMessageOf,
  show,
  showSenderMessage,
} from '../shared/link-page';
import { placeOverlay, type PdfPageView } from '../shared/pdf-view';
import { createSignaturePad, type SignaturePad } from '../shared/signature-pad';
import { enterEmailCode } from './code-step';
import { connectParent, embedDataOfPage, tellParent } from './embed';

// The view as the gateway answers it (the SDK's types, generated from the OpenAPI document).
type RecipientView = components['schemas']['EnvelopeRecipientView'];
type Field = RecipientView['recipient']['fields'][number];
type Role = RecipientView['recipient']['role'];
type LinkEnded = components['schemas']['EnvelopeLinkEnded'];

/** The text and checkbox fields' limit (libs/contracts MAX_TEXT_FIELD_LENGTH). */
const MAX_TEXT_FIELD_LENGTH = 500;

const title = byId('title');
const intro = byId('intro');
const panel = byId('act-panel');
const signerPart = byId('signer-part');
const approverPart = byId('approver-part');
const finishButton = byId<HTMLButtonElement>('finish-button');
const finishError = byId('finish-error');
const approveButton = byId<HTMLButtonElement>('approve-button');
const approveError = byId('approve-error');
const guide = byId('guide');
const remainingLine = byId('remaining');
const nextButton = byId<HTMLButtonElement>('next-field');

/** The token is the last segment of the page's path (`/e/<token>`). */
const token = window.location.pathname.split('/').filter(Boolean).pop() ?? '';
const client = createLinkClient(token);

const ENDED_HEADINGS: Record<LinkEnded['status'], string> = {
  completed: 'Envelope complete',
  declined: 'Envelope declined',
  canceled: 'Envelope canceled',
  expired: 'Link expired',
  acted: 'Already done',
};

/** A failure in the gateway's words, and a PDF that could not be drawn in pdf-view's. */
const messageOf = (err: unknown): string =>
  err instanceof Error && err.name === 'PdfViewError' ? err.message : linkMessageOf(err);

const linkPage = createLinkPage({
  panel,
  endedHeadings: ENDED_HEADINGS,
  actButtons: [finishButton, approveButton],
  decline: {
    send: (reason) => answerOf(client.POST('/envelope/api/decline', { body: { reason } })),
    declined: () => {
      tellParent('declined');
      finish(
        'Declined',
        'You declined. The envelope has ended: the sender and those who already acted have been told, with your reason.',
      );
    },
  },
  // The page has nothing more to offer: the guide goes too.
  onFinish: () => {
    guide.hidden = true;
    document.body.classList.remove('guided');
  },
  // An ended or unknown link, or a page that could not load, is the parent's one `error`.
  onError: (error) => tellParent('error', { ...error }),
  messageOf,
});
const { documentView, finish, endedBy } = linkPage;

/** The date a date field takes: the signing day, YYYY-MM-DD in UTC (as the gateway draws it). */
const today = () => new Date().toISOString().slice(0, 10);

/** One line of text: the default height of date, name, email and text fields (% of the page height). */
const LINE_HEIGHT_PERCENT = 3;

/**
 * A field's height in percent of its page's height, as the gateway computes it
 * (services/gateway/src/operations/envelope-rules.ts fieldHeightPercent): as given, or a third of the
 * width for signature and initials, a square for a checkbox, one line for the rest.
 */
const fieldHeightPercent = (field: Field, page: { width: number; height: number }): number => {
  if (field.height !== undefined) return field.height;
  const widthPoints = (field.width / 100) * page.width;
  if (field.type === 'signature' || field.type === 'initials') return (widthPoints / 3 / page.height) * 100;
  if (field.type === 'checkbox') return (widthPoints / page.height) * 100;
  return LINE_HEIGHT_PERCENT;
};

const TYPE_NAMES: Record<Field['type'], string> = {
  signature: 'Signature',
  initials: 'Initials',
  date: 'Date',
  name: 'Name',
  email: 'Email',
  text: 'Text',
  checkbox: 'Checkbox',
};

const ROLE_WORDS: Record<Role, string> = { signer: 'sign', approver: 'approve', cc: 'receive a copy of' };
const ROLE_NAMES: Record<Role, string> = { signer: 'Signer', approver: 'Approver', cc: 'In copy' };
const STATUS_NAMES: Record<RecipientView['recipient']['status'], string> = {
  waiting: 'waiting for their turn',
  notified: 'asked',
  viewed: 'viewed the document',
  signed: 'signed',
  approved: 'approved',
  declined: 'declined',
};

/** One of this recipient's fields on the page. */
interface FieldView {
  /** Position in `recipient.fields` (the key of its value in the sign request). */
  index: number;
  field: Field;
  /** Where the keyboard goes when the guide brings the signer to this field. */
  target: HTMLElement;
  /** The box on the page. */
  box: HTMLElement;
  isEmpty(): boolean;
}

let view: RecipientView | undefined;
let fields: FieldView[] = [];
let signaturePad: SignaturePad | undefined;
let initialsPad: SignaturePad | undefined;

const nameOfField = (f: Field, index: number) =>
  `${f.label ?? TYPE_NAMES[f.type]} (field ${index + 1}, page ${f.page + 1}${f.required ? ', required' : ''})`;

/** A signature or initials box: shows the adopted image; pressing it takes the signer to the pad. */
const adoptedBox = (f: Field, index: number, pad: () => SignaturePad | undefined): FieldView => {
  const box = h(
    'button',
    {
      type: 'button',
      class: `field-box field-${f.type}`,
      'data-field': index,
      'aria-label': `${nameOfField(f, index)}: adopt your ${f.type === 'initials' ? 'initials' : 'signature'}`,
      onclick: () => {
        const target = pad();
        if (!target) return;
        target.element.scrollIntoView({ behavior: 'smooth', block: 'center' });
        target.focus();
      },
    },
    f.type === 'initials' ? 'Initials' : 'Sign here',
  );
  return { index, field: f, target: box, box, isEmpty: () => pad()?.isEmpty() ?? true };
};

/** A read-only box the page fills in: the date, the recipient's name or email. */
const filledBox = (f: Field, index: number, value: string): FieldView => {
  const input = h('input', {
    type: 'text',
    class: 'field-input',
    readonly: true,
    value,
    'aria-label': `${nameOfField(f, index)}, filled in for you`,
  });
  const box = h('div', { class: `field-box field-${f.type} filled`, 'data-field': index }, input);
  return { index, field: f, target: input, box, isEmpty: () => false };
};

const textBox = (f: Field, index: number): FieldView => {
  const input = h('input', {
    type: 'text',
    class: 'field-input',
    maxlength: MAX_TEXT_FIELD_LENGTH,
    required: f.required,
    'aria-required': f.required ? 'true' : 'false',
    placeholder: f.label ?? (f.required ? 'Required' : 'Optional'),
    'aria-label': nameOfField(f, index),
  });
  input.value = f.value ?? '';
  input.addEventListener('input', refresh);
  const box = h('div', { class: 'field-box field-text', 'data-field': index }, input);
  return { index, field: f, target: input, box, isEmpty: () => input.value.trim() === '' };
};

const checkBox = (f: Field, index: number): FieldView => {
  const input = h('input', {
    type: 'checkbox',
    class: 'field-check',
    required: f.required,
    'aria-label': nameOfField(f, index),
  });
  input.addEventListener('change', refresh);
  const box = h('div', { class: 'field-box field-checkbox', 'data-field': index }, input);
  return { index, field: f, target: input, box, isEmpty: () => !input.checked };
};

const fieldView = (f: Field, index: number, recipient: RecipientView['recipient']): FieldView => {
  switch (f.type) {
    case 'signature':
      return adoptedBox(f, index, () => signaturePad);
    case 'initials':
      return adoptedBox(f, index, () => initialsPad);
    case 'date':
      return filledBox(f, index, today());
    case 'name':
      return filledBox(f, index, recipient.name);
    case 'email':
      return filledBox(f, index, recipient.email);
    case 'text':
      return textBox(f, index);
    case 'checkbox':
      return checkBox(f, index);
  }
};

/**
 * Overlays this recipient's fields on the drawn pages in reading order (page, top, left), which is
 * also the order the keyboard visits them and the guide follows.
 */
const placeFields = (pages: PdfPageView[], recipient: RecipientView['recipient']): FieldView[] =>
  recipient.fields
    .map((f, index) => ({ f, index }))
    .sort((a, b) => a.f.page - b.f.page || a.f.y - b.f.y || a.f.x - b.f.x)
    .flatMap(({ f, index }) => {
      const page = pages[f.page];
      if (!page) return [];
      const item = fieldView(f, index, recipient);
      placeOverlay(page, item.box, {
        x: f.x,
        y: f.y,
        width: f.width,
        height: fieldHeightPercent(f, { width: page.widthPt, height: page.heightPt }),
      });
      return [item];
    });

const emptyRequired = () => fields.filter((item) => item.field.required && item.isEmpty());

/** The count, the boxes' images and states, after every change. */
function refresh() {
  const left = emptyRequired().length;
  remainingLine.textContent =
    left === 0
      ? 'All required fields are filled: you can finish.'
      : `${left} required field${left === 1 ? '' : 's'} left`;
  nextButton.textContent = left === 0 ? 'Go to Finish' : 'Next field';
  for (const item of fields) item.box.classList.toggle('empty', item.field.required && item.isEmpty());
  if (left === 0) show(finishError, '');
}

const showAdopted = (type: 'signature' | 'initials', pad: SignaturePad) => {
  const png = pad.toPng();
  for (const item of fields) {
    if (item.field.type !== type) continue;
    item.box.replaceChildren(
      png ? h('img', { src: png.dataUrl, alt: '' }) : type === 'initials' ? 'Initials' : 'Sign here',
    );
  }
  refresh();
};

/** The field the guide last brought the signer to (the next one follows it, in reading order). */
let guided = -1;

const goTo = (item: FieldView) => {
  guided = fields.indexOf(item);
  item.box.scrollIntoView({ behavior: 'smooth', block: 'center' });
  item.target.focus({ preventScroll: true });
};

/** The next empty required field after the current one (wrapping), or Finish when none is left. */
nextButton.addEventListener('click', () => {
  const empty = emptyRequired();
  if (empty.length === 0) {
    finishButton.scrollIntoView({ behavior: 'smooth', block: 'center' });
    finishButton.focus({ preventScroll: true });
    return;
  }
  const after = empty.find((item) => fields.indexOf(item) > guided) ?? empty[0];
  if (after) goTo(after);
});

const afterActing = (completing: boolean, what: 'signed' | 'approved') =>
  completing
    ? `Thank you, you ${what} the document. Everyone has now acted: the document is being sealed, and the completed PDF will be emailed to every recipient.`
    : `Thank you, you ${what} the document. The others on this envelope are asked next; once everyone has acted, the completed PDF will be emailed to you.`;

finishButton.addEventListener('click', () => {
  if (linkPage.isBusy() || !view || !signaturePad) return;
  const empty = emptyRequired();
  const first = empty[0];
  if (first) {
    show(
      finishError,
      `Please fill every required field first: ${empty.length} required field${empty.length === 1 ? ' is' : 's are'} still empty (${nameOfField(first.field, first.index)}).`,
    );
    goTo(first);
    return;
  }
  const signature = signaturePad.value();
  if (!signature) {
    show(finishError, 'Please draw or type your signature first.');
    signaturePad.focus();
    return;
  }
  const initials = initialsPad?.value();
  const values: Record<string, string | boolean> = {};
  for (const item of fields) {
    if (item.target instanceof HTMLInputElement && item.field.type === 'text')
      values[String(item.index)] = item.target.value;
    if (item.target instanceof HTMLInputElement && item.field.type === 'checkbox')
      values[String(item.index)] = item.target.checked;
  }
  linkPage.act({
    call: () =>
      answerOf(
        client.POST('/envelope/api/sign', { body: { signature, ...(initials ? { initials } : {}), values } }),
      ),
    error: finishError,
    working: 'Signing… this takes a few seconds.',
    done: (signed) => {
      tellParent('signed', { envelopeStatus: signed.envelopeStatus, completing: signed.completing });
      finish('Signed', afterActing(signed.completing, 'signed'), true);
    },
  });
});

approveButton.addEventListener('click', () => {
  linkPage.act({
    call: () => answerOf(client.POST('/envelope/api/approve')),
    error: approveError,
    done: (approved) => {
      tellParent('approved', { envelopeStatus: approved.envelopeStatus, completing: approved.completing });
      finish('Approved', afterActing(approved.completing, 'approved'), true);
    },
  });
});

/** Initials from a name: the first letter of each word ("Ada King Lovelace" → "AKL"). */
const initialsOf = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => Array.from(word)[0]?.toUpperCase() ?? '')
    .join('')
    .slice(0, 4);

const showHeader = (envelope: RecipientView) => {
  const { recipient } = envelope;
  title.textContent = envelope.subject;
  document.title = `${envelope.subject} – ${ROLE_NAMES[recipient.role]}`;
  intro.textContent = `${envelope.senderEmail} asks ${recipient.name} to ${ROLE_WORDS[recipient.role]} “${envelope.fileName}”. The link works until ${formatDate(envelope.expiresAt)}.`;
  showSenderMessage(envelope);
  if (envelope.others.length > 0) {
    const others = [...envelope.others].sort((a, b) => a.order - b.order);
    byId('others-summary').textContent =
      `Who else is on this envelope (${others.length} other${others.length === 1 ? '' : 's'}; you are in group ${recipient.order})`;
    byId('others-list').replaceChildren(
      ...others.map((other) =>
        h(
          'li',
          {},
          h('span', { class: 'other-name' }, other.name),
          ` – ${ROLE_NAMES[other.role]}, group ${other.order}: ${STATUS_NAMES[other.status]}`,
        ),
      ),
    );
    byId('others').hidden = false;
  }
};

const setUpSigner = (recipient: RecipientView['recipient']) => {
  byId('act-heading').textContent = 'Sign this document';
  signerPart.hidden = false;
  const pad = createSignaturePad(byId('signature-pad'), { idPrefix: 'signature' });
  pad.typedName = recipient.name;
  pad.onChange(() => showAdopted('signature', pad));
  signaturePad = pad;
  if (recipient.fields.some((f) => f.type === 'initials')) {
    byId('initials-part').hidden = false;
    const ini = createSignaturePad(byId('initials-pad'), { idPrefix: 'initials' });
    ini.typedName = initialsOf(recipient.name);
    // The pad speaks of a signature; this one holds initials.
    const label = ini.element.querySelector('label[for="initials-typed"]');
    if (label) label.textContent = 'Type your initials';
    const hint = ini.element.querySelector('#initials-draw-hint');
    if (hint) hint.textContent = 'Draw your initials above.';
    ini.element
      .querySelector('#initials-canvas')
      ?.setAttribute(
        'aria-label',
        'Initials drawing area: draw with a mouse, finger or pen. To type them with the keyboard, choose Type.',
      );
    ini.onChange(() => showAdopted('initials', ini));
    initialsPad = ini;
  }
  guide.hidden = false;
  document.body.classList.add('guided');
  refresh();
};

const start = async () => {
  if (!token || window.location.pathname.split('/').filter(Boolean).length < 2) {
    finish('Link not valid', 'This page needs the whole link from your email.');
    return;
  }
  // An embedded link's page knows its parent before any call, so a first call that fails is told too.
  const embed = embedDataOfPage();
  connectParent(embed?.origins);
  if (embed?.refused) {
    finish(embed.refused.title, embed.refused.message);
    tellParent('error', { status: embed.refused.status, message: embed.refused.message });
    return;
  }
  let envelope: RecipientView;
  try {
    envelope = await answerOf(client.GET('/envelope/api/recipient'));
  } catch (err) {
    linkPage.failed(err);
    return;
  }
  view = envelope;
  if (!embed) connectParent(envelope.embedOrigins);
  showHeader(envelope);
  // A recipient asked for an email code enters it before anything of the document is fetched.
  if (envelope.codeRequired) {
    const unlocked = await enterEmailCode({
      client,
      before: documentView,
      email: envelope.recipient.email,
      ended: endedBy,
    });
    if (!unlocked) return;
  }
  const shown = await linkPage.showDocument({
    load: () => answerOf(client.GET('/envelope/api/document', { parseAs: 'arrayBuffer' })),
    maxPages: envelope.pageCount,
    place: (pages) => {
      fields = placeFields(pages, envelope.recipient);
    },
  });
  if (!shown) return;
  const { role } = envelope.recipient;
  if (role === 'signer') setUpSigner(envelope.recipient);
  else if (role === 'approver') {
    byId('act-heading').textContent = 'Approve this document';
    approverPart.hidden = false;
  }
  if (role !== 'cc') panel.hidden = false;
  tellParent('loaded', { role });
  // Every page is on screen: now (and only now) the view is recorded, once.
  await answerOf(client.POST('/envelope/api/view'))
    .then(({ viewedAt }) => tellParent('viewed', { viewedAt }))
    .catch((err: unknown) => {
      if (endedBy(err) || !envelope.embedOrigins) return;
      // A signing URL opens once: another page already opened this one.
      finish('Link already used', messageOf(err));
      tellParent('error', { status: 'used', message: messageOf(err) });
    });
};

void start();

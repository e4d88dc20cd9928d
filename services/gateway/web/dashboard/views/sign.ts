import { answerOf, ApiError } from '../../shared/http';
import { placeOverlay, renderPdf, type PdfPageView, type PdfView } from '../../shared/pdf-view';
import { createSignaturePad, SIGNATURE_ASPECT } from '../../shared/signature-pad';
import { client, signingForm, type SignFields } from '../api';
import { h } from '../../shared/dom';
import { field, formatBytes, message } from '../ui';
import type { ViewContext } from '../context';

/** A fresh Idempotency-Key (a double submit of the same form signs once). */
const newKey = (): string =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** A PNG or JPEG shown as one page, with a layer for the signature box like pdf-view's pages. */
const imagePage = async (container: HTMLElement, file: File): Promise<PdfPageView> => {
  const url = URL.createObjectURL(file);
  const img = h('img', { src: url, alt: '' });
  await img.decode().catch(() => {
    throw new Error('This image could not be read.');
  });
  const element = h('figure', { class: 'pdf-page', role: 'group', 'aria-label': 'Page 1 of 1' });
  element.style.position = 'relative';
  element.style.margin = '0 auto';
  img.style.display = 'block';
  img.style.width = '100%';
  const layer = h('div', { class: 'pdf-layer' });
  layer.style.position = 'absolute';
  layer.style.inset = '0';
  element.append(img, layer);
  container.append(element);
  const widthPt = img.naturalWidth;
  const heightPt = img.naturalHeight;
  return {
    index: 0,
    element,
    canvas: h('canvas'),
    layer,
    widthPt,
    heightPt,
    scale: element.clientWidth / widthPt,
    currentScale: () => element.clientWidth / widthPt,
  };
};

export const renderSign = (context: ViewContext): void => {
  const { main, session } = context;
  const { usage } = session;
  const maxBytes = usage.limits.maxFileBytes;
  let idempotencyKey = newKey();
  let pages: PdfPageView[] = [];
  let view: PdfView | undefined;

  const quotaText = (current: typeof session): string =>
    current.usage.documentsRemaining === null
      ? `Your ${current.plan} plan has no monthly limit.`
      : `${current.usage.documentsRemaining} of ${current.usage.limits.documentsPerMonth ?? 0} documents left this month on your ${current.plan} plan.`;
  const quota = h('p', { 'data-testid': 'quota' }, quotaText(session));
  /** The figures change with every signing (here or elsewhere). */
  const refreshQuota = async (): Promise<void> => {
    const current = await context.refreshSession();
    if (current) quota.textContent = quotaText(current);
  };

  // 1. The document.
  const fileInput = h('input', {
    type: 'file',
    name: 'file',
    accept: 'application/pdf,image/png,image/jpeg,.pdf,.png,.jpg,.jpeg',
    required: true,
  });
  const preview = h('div', { class: 'pdf-preview' });
  const previewStatus = h('div', { 'aria-live': 'polite' });

  // 2. Where the signature goes (the page, or these fields).
  const pageSelect = h('select', { name: 'page' }, h('option', { value: '0' }, 'Page 1'));
  const x = h('input', {
    type: 'number',
    name: 'x',
    min: 0,
    max: 100,
    step: 1,
    value: 55,
    inputmode: 'numeric',
  });
  const y = h('input', {
    type: 'number',
    name: 'y',
    min: 0,
    max: 100,
    step: 1,
    value: 80,
    inputmode: 'numeric',
  });
  const width = h('input', {
    type: 'number',
    name: 'width',
    min: 10,
    max: 60,
    step: 1,
    value: 30,
    inputmode: 'numeric',
  });
  const box = h('div', { class: 'sig-box', 'aria-hidden': 'true' }, h('span', {}, 'Signature'));

  // 3. Who signs, and the signature.
  const signerName = h('input', {
    type: 'text',
    name: 'signerName',
    autocomplete: 'name',
    required: true,
    maxlength: 200,
  });
  const signerEmail = h('input', {
    type: 'email',
    name: 'signerEmail',
    autocomplete: 'email',
    required: true,
    maxlength: 254,
    value: session.email,
  });
  const padHolder = h('div', {});
  const pad = createSignaturePad(padHolder, { idPrefix: 'dash-sig', mode: 'type' });

  const status = h('div', { class: 'form-status' });
  const submit = h('button', { type: 'submit' }, 'Sign document');

  const numberOf = (input: HTMLInputElement, fallback: number): number => {
    const value = Number(input.value);
    return Number.isFinite(value) ? value : fallback;
  };

  /** Draws the signature box where the fields say, with the signature in it when there is one. */
  const showBox = (): void => {
    const page = pages[Number(pageSelect.value)] ?? pages[0];
    if (!page) return;
    const png = pad.toPng();
    box.replaceChildren(png ? h('img', { src: png.dataUrl, alt: '' }) : h('span', {}, 'Signature'));
    placeOverlay(page, box, {
      x: clamp(numberOf(x, 55), 0, 100),
      y: clamp(numberOf(y, 80), 0, 100),
      width: clamp(numberOf(width, 30), 10, 60),
      aspect: SIGNATURE_ASPECT,
    });
  };
  for (const input of [x, y, width, pageSelect]) input.addEventListener('input', showBox);
  pad.onChange(showBox);
  signerName.addEventListener('input', () => {
    // The typed signature follows the signer's name until the signer types one of their own.
    if (pad.mode === 'type' && (pad.typedName === '' || pad.typedName === signerName.dataset.last)) {
      pad.typedName = signerName.value;
    }
    signerName.dataset.last = signerName.value;
  });

  /** A click or tap on a page puts the signature box there (centred on the point). */
  const placeAt = (page: PdfPageView, event: MouseEvent): void => {
    const rect = page.layer.getBoundingClientRect();
    const w = clamp(numberOf(width, 30), 10, 60);
    const heightPct = (((w / 100) * page.widthPt * SIGNATURE_ASPECT) / page.heightPt) * 100;
    const px = ((event.clientX - rect.left) / rect.width) * 100 - w / 2;
    const py = ((event.clientY - rect.top) / rect.height) * 100 - heightPct / 2;
    pageSelect.value = String(page.index);
    x.value = String(Math.round(clamp(px, 0, 100 - w)));
    y.value = String(Math.round(clamp(py, 0, 100 - heightPct)));
    showBox();
  };

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    void view?.destroy();
    view = undefined;
    pages = [];
    preview.replaceChildren();
    previewStatus.replaceChildren();
    status.replaceChildren();
    if (!file) return;
    if (file.size > maxBytes) {
      previewStatus.replaceChildren(
        message(
          'error',
          `This file is ${formatBytes(file.size)}; your plan takes files up to ${formatBytes(maxBytes)}.`,
        ),
      );
      return;
    }
    previewStatus.replaceChildren(message('info', 'Showing the document…'));
    const shown =
      file.type === 'image/png' || file.type === 'image/jpeg'
        ? imagePage(preview, file).then((page) => [page])
        : file
            .arrayBuffer()
            .then((data) => renderPdf(preview, { data }, { maxWidth: 720 }))
            .then((rendered) => {
              view = rendered;
              return rendered.pages;
            });
    shown
      .then((shownPages) => {
        pages = shownPages;
        pageSelect.replaceChildren(
          ...pages.map((page) => h('option', { value: page.index }, `Page ${page.index + 1}`)),
        );
        for (const page of pages) {
          page.layer.addEventListener('click', (event) => placeAt(page, event));
          page.layer.style.cursor = 'crosshair';
        }
        previewStatus.replaceChildren(
          message(
            'info',
            `${pages.length} page${pages.length === 1 ? '' : 's'}. Click or tap where the signature goes, or set the position below.`,
          ),
        );
        showBox();
      })
      .catch((err: unknown) => {
        previewStatus.replaceChildren(
          message('error', err instanceof Error ? err.message : 'The document could not be shown.'),
        );
      });
  });

  const form = h(
    'form',
    { class: 'sign-form' },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'doc-title' },
      h('h2', { id: 'doc-title' }, '1. Document'),
      field('PDF, PNG or JPEG', fileInput, `Up to ${formatBytes(maxBytes)}.`),
      previewStatus,
      preview,
    ),
    h(
      'div',
      { class: 'sign-side' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'place-title' },
        h('h2', { id: 'place-title' }, '2. Position'),
        h(
          'p',
          { class: 'hint' },
          'Percent of the page, from its top-left corner to the top-left corner of the signature.',
        ),
        h(
          'div',
          { class: 'grid' },
          field('Page', pageSelect),
          field('From the left (%)', x),
          field('From the top (%)', y),
          field('Width (% of the page)', width),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'sig-title' },
        h('h2', { id: 'sig-title' }, '3. Signer and signature'),
        h(
          'div',
          { class: 'grid' },
          field("Signer's full name", signerName),
          field("Signer's email", signerEmail),
        ),
        padHolder,
      ),
      status,
      h('div', { class: 'actions' }, submit),
    ),
  );

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = fileInput.files?.[0];
    const signature = pad.value();
    const problem = !file
      ? 'Choose a document to sign.'
      : file.size > maxBytes
        ? `This file is ${formatBytes(file.size)}; your plan takes files up to ${formatBytes(maxBytes)}.`
        : !signerName.value.trim()
          ? "Enter the signer's full name."
          : !signature
            ? pad.mode === 'draw'
              ? 'Draw a signature, or choose Type.'
              : 'Type a signature.'
            : undefined;
    if (problem || !file || !signature) {
      status.replaceChildren(message('error', problem ?? 'Something is missing.'));
      return;
    }
    const fields: SignFields = {
      signerName: signerName.value.trim(),
      signerEmail: signerEmail.value.trim(),
      ...(signature.mode === 'type'
        ? { mode: 'type', typedName: signature.typedName, sigColor: signature.color }
        : { mode: 'draw', signatureData: `data:image/png;base64,${signature.imageBase64}` }),
      page: Number(pageSelect.value),
      x: numberOf(x, 55),
      y: numberOf(y, 80),
      width: numberOf(width, 30),
    };

    submit.disabled = true;
    status.replaceChildren(message('info', 'Signing…'));
    answerOf(
      client.POST('/api/sign', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: { ...fields, file: file.name },
        bodySerializer: () => signingForm(fields, file),
      }),
    )
      .then(async (signed) => {
        idempotencyKey = newKey();
        status.replaceChildren(
          h(
            'div',
            { class: 'message success', role: 'status' },
            h('p', {}, `Signed. Audit ID `, h('code', {}, signed.auditId), '.'),
            h(
              'p',
              { class: 'actions' },
              h('a', { href: signed.downloadUrl, download: '', class: 'button' }, 'Download signed PDF'),
              h(
                'a',
                { href: `#/document/${encodeURIComponent(signed.auditId)}`, class: 'button secondary' },
                'View details',
              ),
            ),
          ),
        );
        (status.querySelector('a') as HTMLElement | null)?.focus();
        await refreshQuota();
      })
      .catch((err: unknown) => {
        const text = err instanceof Error ? err.message : String(err);
        const quotaUsed = err instanceof ApiError && err.status === 403 && /documents a month/.test(text);
        status.replaceChildren(
          quotaUsed
            ? h(
                'div',
                { class: 'message error', role: 'alert' },
                h('p', {}, h('strong', {}, 'Not signed: this month’s documents are used up. ')),
                h('p', {}, `${text.charAt(0).toUpperCase()}${text.slice(1)}.`),
                h('p', {}, h('a', { href: '#/plan' }, 'See your plan and usage')),
              )
            : message('error', `Not signed: ${text}`),
        );
        if (quotaUsed) void refreshQuota().catch(() => undefined);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  main.append(h('h1', {}, 'Sign a document'), quota, form);
};

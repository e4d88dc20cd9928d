import { answerOf, ApiError } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { renderPdf, type PdfView } from '../../../shared/pdf-view';
import { client, envelopeForm, type EnvelopeFields, type EnvelopeRecipientInput } from '../../api';
import type { ViewContext } from '../../context';
import { navigate } from '../../router';
import { field, formatBytes, message } from '../../ui';
import { createFieldEditor } from './fields';
import { newKey } from './keys';

type Role = EnvelopeRecipientInput['role'];

interface RecipientRow {
  readonly key: number;
  readonly row: HTMLElement;
  readonly name: HTMLInputElement;
  readonly email: HTMLInputElement;
  readonly role: HTMLSelectElement;
  readonly order: HTMLInputElement;
  readonly code: HTMLInputElement;
}

const ROLES: [Role, string][] = [
  ['signer', 'Signer'],
  ['approver', 'Approver'],
  ['cc', 'In copy'],
];

/** `#/new-envelope`: a PDF, its recipients in groups, each signer's fields placed on the pages, send. */
export const renderNewEnvelope = (context: ViewContext): void => {
  const { main, session } = context;
  const maxBytes = session.usage.limits.maxFileBytes;
  let idempotencyKey = newKey();
  let view: PdfView | undefined;
  let rows: RecipientRow[] = [];
  let nextKey = 1;
  const editor = createFieldEditor();

  // 1. The document and the emails' words.
  const fileInput = h('input', {
    type: 'file',
    name: 'file',
    accept: 'application/pdf,.pdf',
    required: true,
  });
  const subject = h('input', { type: 'text', name: 'subject', maxlength: 200 });
  const messageInput = h('textarea', { name: 'message', rows: 3, maxlength: 2000 });
  const expires = h('input', {
    type: 'number',
    name: 'expiresInDays',
    min: 1,
    max: 90,
    step: 1,
    value: 30,
    inputmode: 'numeric',
  });
  const preview = h('div', { class: 'pdf-preview envelope-pages' });
  const previewStatus = h('div', { 'aria-live': 'polite' });

  // 2. The recipients.
  const recipientList = h('ol', { class: 'recipient-rows' });
  const addRecipient = h('button', { type: 'button', class: 'secondary' }, 'Add recipient');

  const signersChanged = (): void => {
    editor.setSigners(
      rows
        .map((row, index) => ({ row, index }))
        .filter(({ row }) => row.role.value === 'signer')
        .map(({ row, index }) => ({ key: row.key, name: row.name.value.trim(), index })),
    );
  };

  const renumber = (): void => {
    rows.forEach((row, i) => {
      const legend = row.row.querySelector('legend');
      if (legend) legend.textContent = `Recipient ${i + 1}`;
      const remove = row.row.querySelector<HTMLButtonElement>('button.remove-recipient');
      if (remove) {
        remove.setAttribute('aria-label', `Remove recipient ${i + 1}`);
        remove.disabled = rows.length === 1;
      }
    });
  };

  const addRow = (role: Role = 'signer'): RecipientRow => {
    const key = nextKey++;
    const last = rows[rows.length - 1];
    const name = h('input', {
      type: 'text',
      name: 'name',
      required: true,
      maxlength: 200,
      autocomplete: 'off',
    });
    const email = h('input', {
      type: 'email',
      name: 'email',
      required: true,
      maxlength: 254,
      autocomplete: 'off',
    });
    const roleSelect = h(
      'select',
      { name: 'role' },
      ...ROLES.map(([value, label]) => h('option', { value, selected: value === role }, label)),
    );
    const order = h('input', {
      type: 'number',
      name: 'order',
      min: 1,
      max: 100,
      step: 1,
      required: true,
      inputmode: 'numeric',
      value: last ? Math.min(100, Number(last.order.value || '0') + 1) : 1,
    });
    const code = h('input', { type: 'checkbox', name: 'requireEmailCode' });
    const codeLabel = h('label', { class: 'check' }, code, ' Ask for a one-time code (emailed to them)');
    const remove = h('button', { type: 'button', class: 'secondary small remove-recipient' }, 'Remove');
    /** People in copy open no link: they need no code. */
    const showCode = (): void => {
      const cc = roleSelect.value === 'cc';
      code.disabled = cc;
      if (cc) code.checked = false;
    };
    const row = h(
      'li',
      { 'data-key': key },
      h(
        'fieldset',
        { class: 'recipient-row' },
        h('legend', {}, 'Recipient'),
        field('Name', name),
        field('Email', email),
        field('Role', roleSelect),
        field('Group', order, 'Same number: in parallel. Lower numbers first.'),
        h('div', { class: 'actions' }, codeLabel, remove),
      ),
    );
    const entry: RecipientRow = { key, row, name, email, role: roleSelect, order, code };
    rows.push(entry);
    recipientList.append(row);
    name.addEventListener('input', signersChanged);
    roleSelect.addEventListener('change', () => {
      showCode();
      signersChanged();
    });
    remove.addEventListener('click', () => {
      rows = rows.filter((other) => other !== entry);
      row.remove();
      renumber();
      signersChanged();
      addRecipient.focus();
    });
    renumber();
    signersChanged();
    return entry;
  };
  addRecipient.addEventListener('click', () => addRow().name.focus());
  addRow();

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    void view?.destroy();
    view = undefined;
    editor.setPages([]);
    preview.replaceChildren();
    previewStatus.replaceChildren();
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
    void file
      .arrayBuffer()
      .then((data) => renderPdf(preview, { data }, { maxWidth: 820 }))
      .then((rendered) => {
        view = rendered;
        editor.setPages(rendered.pages);
        if (!subject.value) subject.placeholder = `Please sign: ${file.name}`;
        previewStatus.replaceChildren(
          message(
            'info',
            `${rendered.pageCount} page${rendered.pageCount === 1 ? '' : 's'}. Place each signer's fields on the pages below.`,
          ),
        );
      })
      .catch((err: unknown) => {
        previewStatus.replaceChildren(
          message('error', err instanceof Error ? err.message : 'The document could not be shown.'),
        );
      });
  });

  const status = h('div', { class: 'form-status' });
  const submit = h('button', { type: 'submit' }, 'Send envelope');

  const form = h(
    'form',
    { class: 'envelope-form' },
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'env-doc-title' },
      h('h2', { id: 'env-doc-title' }, '1. Document'),
      field('PDF', fileInput, `Up to ${formatBytes(maxBytes)}.`),
      previewStatus,
      h(
        'div',
        { class: 'grid' },
        field('Subject (optional)', subject),
        field('Days until it expires', expires),
      ),
      field('Message to the recipients (optional)', messageInput),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'env-recipients-title' },
      h('h2', { id: 'env-recipients-title' }, '2. Recipients'),
      h(
        'p',
        { class: 'hint' },
        'Signers sign and fill their fields, approvers approve or decline, people in copy receive the completed document. Groups act one after the other; everyone in a group at once.',
      ),
      recipientList,
      h('div', { class: 'actions' }, addRecipient),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'env-fields-title' },
      h('h2', { id: 'env-fields-title' }, "3. Signers' fields"),
      editor.element,
      editor.palette,
      preview,
    ),
    status,
    h('div', { class: 'actions' }, submit),
  );

  /** Moves focus to what a 400 named: `recipients[1].fields[0]…` or `recipients[1].email`. */
  const focusNamed = (text: string): void => {
    const match =
      /recipients\[(\d+)\](?:\.(fields)(?:\[(\d+)\])?|\.(name|email|role|order|requireEmailCode))?/.exec(
        text,
      );
    const row = match ? rows[Number(match[1])] : undefined;
    if (!match || !row) return;
    if (match[3] !== undefined && editor.focusField(row.key, Number(match[3]))) return;
    const named = {
      name: row.name,
      email: row.email,
      role: row.role,
      order: row.order,
      requireEmailCode: row.code,
    };
    const input: HTMLElement = match[4] ? named[match[4] as keyof typeof named] : row.name;
    input.focus();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = fileInput.files?.[0];
    if (!file) {
      status.replaceChildren(message('error', 'Choose a PDF to send.'));
      fileInput.focus();
      return;
    }
    const recipients: EnvelopeRecipientInput[] = rows.map((row) => {
      const role = row.role.value as Role;
      return {
        name: row.name.value.trim(),
        email: row.email.value.trim(),
        role,
        order: Number(row.order.value),
        requireEmailCode: role !== 'cc' && row.code.checked,
        embedded: false,
        fields: role === 'signer' ? editor.fieldsOf(row.key) : [],
      };
    });
    const fields: EnvelopeFields = {
      recipients,
      ...(subject.value.trim() ? { subject: subject.value.trim() } : {}),
      ...(messageInput.value.trim() ? { message: messageInput.value } : {}),
      expiresInDays: Number(expires.value || '30'),
    };
    submit.disabled = true;
    status.replaceChildren(message('info', 'Sending…'));
    answerOf(
      client.POST('/api/envelopes', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: { ...fields, file: file.name },
        bodySerializer: () => envelopeForm(fields, file),
      }),
    )
      .then((envelope) => {
        idempotencyKey = newKey();
        navigate(`#/envelope/${encodeURIComponent(envelope.envelopeId)}`);
      })
      .catch((err: unknown) => {
        // A definite answer ends this attempt: the next one is a new request. No answer: the same.
        if (err instanceof ApiError && err.status !== 0) idempotencyKey = newKey();
        const text = err instanceof Error ? err.message : String(err);
        status.replaceChildren(message('error', `Not sent: ${text}`));
        if (err instanceof ApiError && err.status === 400) focusNamed(text);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  main.append(
    h('p', {}, h('a', { href: '#/envelopes' }, '← All envelopes')),
    h('h1', {}, 'New envelope'),
    h('p', {}, 'Send one PDF to several people: they sign, approve or receive a copy, group after group.'),
    form,
  );
};

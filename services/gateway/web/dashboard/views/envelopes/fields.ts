import { h } from '../../../shared/dom';
import type { PdfPageView } from '../../../shared/pdf-view';
import type { EnvelopeFieldInput } from '../../api';
import { field } from '../../ui';

/**
 * Placing a signer's fields on the rendered pages: drag a type from the palette onto a page (or press
 * it: the field lands on the chosen page), then move it by dragging or with the arrow keys, resize it
 * by its corner or with Shift+arrow keys, Delete removes it. Positions are the API's: percent of the
 * page as shown (pdf-view's layer), origin top-left, `x`/`y` the box's top-left corner.
 */

export type FieldType = EnvelopeFieldInput['type'];

export const FIELD_TYPES: readonly { type: FieldType; label: string; width: number }[] = [
  { type: 'signature', label: 'Signature', width: 30 },
  { type: 'initials', label: 'Initials', width: 12 },
  { type: 'date', label: 'Date', width: 18 },
  { type: 'name', label: 'Name', width: 25 },
  { type: 'email', label: 'Email', width: 30 },
  { type: 'text', label: 'Text', width: 25 },
  { type: 'checkbox', label: 'Checkbox', width: 4 },
];
const LABELS = Object.fromEntries(FIELD_TYPES.map((t) => [t.type, t.label])) as Record<FieldType, string>;

/** The API's limits on a box (percent): width 10-60 for a signature, 2-60 otherwise; height 1-50. */
const minWidth = (type: FieldType): number => (type === 'signature' ? 10 : 2);
const MAX_WIDTH = 60;
const MIN_HEIGHT = 1;
const MAX_HEIGHT = 50;
/** One step of the keyboard, in percent of the page. */
const STEP = 1;

/** The gateway's default height (envelope-rules.ts): a third of the width, a square, or one line. */
export const defaultHeight = (type: FieldType, width: number, page: PdfPageView): number => {
  const widthPt = (width / 100) * page.widthPt;
  if (type === 'signature' || type === 'initials') return (widthPt / 3 / page.heightPt) * 100;
  if (type === 'checkbox') return (widthPt / page.heightPt) * 100;
  return 3;
};

export interface Signer {
  readonly key: number;
  readonly name: string;
  /** Its place among the recipients (colour of its fields). */
  readonly index: number;
}

export interface PlacedField {
  readonly id: number;
  readonly signer: number;
  readonly type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string;
  readonly box: HTMLButtonElement;
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));
/** Two decimals, rounded down: a box inside the page stays inside it (x + width ≤ 100). */
const floor2 = (value: number): number => Math.floor(value * 100 + 1e-6) / 100;
const pct = (value: number): string => `${Math.round(value * 10) / 10}%`;

export interface FieldEditor {
  /** The signer and page choice, the help and the selected field's options. */
  readonly element: HTMLElement;
  /** The palette: put it right before the pages, in the same parent (it sticks to the top). */
  readonly palette: HTMLElement;
  /** The document's pages were drawn (or removed: `[]`); every field is dropped. */
  setPages(pages: PdfPageView[]): void;
  /** The signers changed (added, renamed, removed, role changed): their fields follow. */
  setSigners(signers: Signer[]): void;
  /** A signer's fields as the API takes them, in the order placed. */
  fieldsOf(signer: number): EnvelopeFieldInput[];
  /** Selects and focuses a signer's `index`-th field (a 400 named it); false when there is none. */
  focusField(signer: number, index: number): boolean;
}

export const createFieldEditor = (): FieldEditor => {
  let pages: PdfPageView[] = [];
  let signers: Signer[] = [];
  let fields: PlacedField[] = [];
  let selected: PlacedField | undefined;
  let nextId = 1;

  const signerSelect = h('select', { name: 'fieldSigner' });
  const pageSelect = h('select', { name: 'fieldPage' });
  const announce = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
  const help = h(
    'p',
    { class: 'hint', id: 'field-help' },
    'Drag a field onto a page, or press it to add it to the page chosen above. On the page, select a field and use the arrow keys to move it, Shift and the arrow keys to resize it, and Delete to remove it.',
  );
  const paletteButtons = FIELD_TYPES.map(({ type, label }) =>
    h(
      'button',
      {
        type: 'button',
        class: `palette-item secondary t-${type}`,
        'data-field-type': type,
        'aria-label': `Add a ${label.toLowerCase()} field`,
        'aria-describedby': 'field-help',
      },
      label,
    ),
  );
  const paletteFor = h('span', { class: 'palette-for', 'aria-hidden': 'true' });
  const palette = h(
    'div',
    { class: 'palette', role: 'group', 'aria-label': 'Fields to place' },
    ...paletteButtons,
    paletteFor,
  );
  const showSigner = (): void => {
    const signer = signers.find((s) => s.key === Number(signerSelect.value));
    paletteFor.textContent = signer ? `for ${signer.name || `Signer ${signer.index + 1}`}` : '';
  };
  signerSelect.addEventListener('change', showSigner);

  // The selected field's options.
  const requiredBox = h('input', { type: 'checkbox', name: 'fieldRequired' });
  const labelInput = h('input', { type: 'text', name: 'fieldLabel', maxlength: 100 });
  const removeButton = h('button', { type: 'button', class: 'secondary small' }, 'Remove field');
  const selectedTitle = h('h3', { id: 'selected-field-title' }, 'No field selected');
  const selectedWhere = h('p', { class: 'hint' });
  const options = h(
    'div',
    { class: 'field-options', role: 'group', 'aria-labelledby': 'selected-field-title' },
    selectedTitle,
    selectedWhere,
    h('label', { class: 'check' }, requiredBox, ' Required'),
    field('Label (shown to the signer)', labelInput),
    h('div', { class: 'actions' }, removeButton),
  );
  options.hidden = true;

  const element = h(
    'div',
    { class: 'field-editor' },
    h('div', { class: 'grid' }, field('Fields for', signerSelect), field('Add to page', pageSelect)),
    help,
    options,
    announce,
  );

  const signerOf = (f: PlacedField): Signer | undefined => signers.find((s) => s.key === f.signer);
  const pageOf = (f: PlacedField): PdfPageView | undefined => pages[f.page];
  const describe = (f: PlacedField): string =>
    `${LABELS[f.type]} field of ${signerOf(f)?.name || 'a signer'}${f.required ? '' : ' (optional)'}${f.label ? `, “${f.label}”` : ''}, page ${f.page + 1}, ${pct(f.x)} from the left, ${pct(f.y)} from the top, ${pct(f.width)} wide, ${pct(f.height)} high`;

  /** Puts a field's box where its numbers say, kept inside the page and within the API's sizes. */
  const place = (f: PlacedField): void => {
    f.width = clamp(f.width, minWidth(f.type), Math.min(MAX_WIDTH, 100));
    f.height = clamp(f.height, MIN_HEIGHT, MAX_HEIGHT);
    f.x = clamp(f.x, 0, 100 - f.width);
    f.y = clamp(f.y, 0, 100 - f.height);
    Object.assign(f.box.style, {
      left: `${f.x}%`,
      top: `${f.y}%`,
      width: `${f.width}%`,
      height: `${f.height}%`,
    });
    f.box.setAttribute('aria-label', describe(f));
    const signer = signerOf(f);
    f.box.dataset.signer = String((signer?.index ?? 0) % 6);
    f.box.classList.toggle('optional', !f.required);
    if (f === selected) showOptions();
  };

  const showOptions = (): void => {
    if (!selected) {
      options.hidden = true;
      return;
    }
    options.hidden = false;
    selectedTitle.textContent = `Selected: ${LABELS[selected.type]} field of ${signerOf(selected)?.name || 'a signer'}`;
    selectedWhere.textContent = `Page ${selected.page + 1}: ${pct(selected.x)} from the left, ${pct(selected.y)} from the top, ${pct(selected.width)} × ${pct(selected.height)}.`;
    requiredBox.checked = selected.required;
    if (document.activeElement !== labelInput) labelInput.value = selected.label;
  };

  const select = (f: PlacedField | undefined): void => {
    if (selected) selected.box.setAttribute('aria-pressed', 'false');
    selected = f;
    if (f) f.box.setAttribute('aria-pressed', 'true');
    showOptions();
  };

  const remove = (f: PlacedField): void => {
    f.box.remove();
    fields = fields.filter((other) => other !== f);
    if (selected === f) select(undefined);
  };

  /** Tracks a pointer from `start` until it is released, calling `move` with the distance in CSS pixels. */
  const track = (
    start: PointerEvent,
    target: HTMLElement,
    move: (dx: number, dy: number, event: PointerEvent) => void,
    end?: (event: PointerEvent, moved: boolean) => void,
  ): void => {
    const x0 = start.clientX;
    const y0 = start.clientY;
    let moved = false;
    target.setPointerCapture(start.pointerId);
    const onMove = (event: PointerEvent): void => {
      const dx = event.clientX - x0;
      const dy = event.clientY - y0;
      if (!moved && Math.hypot(dx, dy) < 4) return;
      moved = true;
      move(dx, dy, event);
    };
    const onUp = (event: PointerEvent): void => {
      target.removeEventListener('pointermove', onMove);
      target.removeEventListener('pointerup', onUp);
      target.removeEventListener('pointercancel', onUp);
      end?.(event, moved);
    };
    target.addEventListener('pointermove', onMove);
    target.addEventListener('pointerup', onUp);
    target.addEventListener('pointercancel', onUp);
  };

  const addField = (
    type: FieldType,
    pageIndex: number,
    at?: { cx: number; cy: number },
  ): PlacedField | undefined => {
    const page = pages[pageIndex];
    const signer = signers.find((s) => s.key === Number(signerSelect.value));
    if (!page || !signer) return undefined;
    const width = FIELD_TYPES.find((t) => t.type === type)?.width ?? 20;
    const height = defaultHeight(type, width, page);
    const onPage = fields.filter((f) => f.page === pageIndex).length;
    const box = h(
      'button',
      {
        type: 'button',
        class: `env-field t-${type}`,
        'data-field-type': type,
        'aria-pressed': 'false',
        'aria-describedby': 'field-help',
      },
      h('span', { class: 'env-field-type' }, LABELS[type]),
      h('span', { class: 'env-field-who' }, signer.name),
    );
    const handle = h('span', { class: 'env-field-resize', 'aria-hidden': 'true' });
    box.append(handle);
    const placed: PlacedField = {
      id: nextId++,
      signer: signer.key,
      type,
      page: pageIndex,
      // Centred where it was dropped; pressed from the palette: near the top left, staggered.
      x: at ? at.cx - width / 2 : 8 + ((onPage * 4) % 40),
      y: at ? at.cy - height / 2 : 8 + ((onPage * 6) % 60),
      width,
      height,
      required: true,
      label: '',
      box,
    };
    fields.push(placed);
    page.layer.append(box);
    place(placed);
    wireBox(placed, handle);
    select(placed);
    box.focus();
    announce.textContent = `Added: ${describe(placed)}.`;
    return placed;
  };

  const wireBox = (f: PlacedField, handle: HTMLElement): void => {
    const { box } = f;
    box.addEventListener('focus', () => select(f));
    box.addEventListener('keydown', (event) => {
      const page = pageOf(f);
      if (!page) return;
      const resize = event.shiftKey;
      let handled = true;
      switch (event.key) {
        case 'ArrowLeft':
          if (resize) f.width -= STEP;
          else f.x -= STEP;
          break;
        case 'ArrowRight':
          if (resize) f.width += STEP;
          else f.x += STEP;
          break;
        case 'ArrowUp':
          if (resize) f.height -= STEP;
          else f.y -= STEP;
          break;
        case 'ArrowDown':
          if (resize) f.height += STEP;
          else f.y += STEP;
          break;
        case 'Delete':
        case 'Backspace': {
          const signerName = signerOf(f)?.name ?? '';
          remove(f);
          announce.textContent = `Removed the ${LABELS[f.type].toLowerCase()} field of ${signerName}.`;
          paletteButtons[0]?.focus();
          break;
        }
        default:
          handled = false;
      }
      if (!handled) return;
      event.preventDefault();
      if (fields.includes(f)) {
        place(f);
        announce.textContent = describe(f);
      }
    });
    box.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      const page = pageOf(f);
      if (!page) return;
      event.preventDefault();
      box.focus();
      const rect = page.layer.getBoundingClientRect();
      const resizing = event.target === handle;
      const start = { x: f.x, y: f.y, width: f.width, height: f.height };
      track(
        event,
        box,
        (dx, dy) => {
          const px = (dx / rect.width) * 100;
          const py = (dy / rect.height) * 100;
          if (resizing) {
            f.width = Math.min(start.width + px, 100 - start.x);
            f.height = Math.min(start.height + py, 100 - start.y);
          } else {
            f.x = start.x + px;
            f.y = start.y + py;
          }
          place(f);
        },
        (_event, moved) => {
          if (moved) announce.textContent = describe(f);
        },
      );
    });
  };

  // Dragging from the palette: a ghost follows the pointer; released over a page, the field lands there.
  paletteButtons.forEach((button) => {
    const type = button.dataset.fieldType as FieldType;
    let dragged = false;
    button.addEventListener('pointerdown', (event) => {
      if (event.button !== 0 || button.disabled) return;
      dragged = false;
      let ghost: HTMLElement | undefined;
      track(
        event,
        button,
        (_dx, _dy, move) => {
          dragged = true;
          ghost ??= document.body.appendChild(
            h('div', { class: `palette-ghost t-${type}`, 'aria-hidden': 'true' }, LABELS[type]),
          );
          ghost.style.left = `${move.clientX}px`;
          ghost.style.top = `${move.clientY}px`;
        },
        (up, moved) => {
          ghost?.remove();
          // The click that may follow this release comes before any timer: forget the drag after it.
          setTimeout(() => {
            dragged = false;
          }, 0);
          if (!moved) return;
          const page = pages.find((p) => {
            const r = p.layer.getBoundingClientRect();
            return (
              up.clientX >= r.left && up.clientX <= r.right && up.clientY >= r.top && up.clientY <= r.bottom
            );
          });
          if (!page) {
            announce.textContent = 'Drop the field onto a page of the document.';
            return;
          }
          const r = page.layer.getBoundingClientRect();
          addField(type, page.index, {
            cx: ((up.clientX - r.left) / r.width) * 100,
            cy: ((up.clientY - r.top) / r.height) * 100,
          });
        },
      );
    });
    button.addEventListener('click', () => {
      // A drag ends with a click on the button: it placed the field already.
      if (dragged) {
        dragged = false;
        return;
      }
      addField(type, Number(pageSelect.value));
    });
  });

  requiredBox.addEventListener('change', () => {
    if (!selected) return;
    selected.required = requiredBox.checked;
    place(selected);
  });
  labelInput.addEventListener('input', () => {
    if (!selected) return;
    selected.label = labelInput.value.trim();
    place(selected);
  });
  removeButton.addEventListener('click', () => {
    if (!selected) return;
    const f = selected;
    remove(f);
    announce.textContent = `Removed the ${LABELS[f.type].toLowerCase()} field.`;
    paletteButtons[0]?.focus();
  });

  const refreshControls = (): void => {
    const ready = pages.length > 0 && signers.length > 0;
    for (const button of paletteButtons) button.disabled = !ready;
    help.dataset.state = ready ? 'ready' : 'waiting';
  };

  return {
    element,
    palette,
    setPages(next) {
      for (const f of fields) f.box.remove();
      fields = [];
      select(undefined);
      pages = next;
      pageSelect.replaceChildren(
        ...pages.map((page) => h('option', { value: page.index }, `Page ${page.index + 1}`)),
      );
      refreshControls();
    },
    setSigners(next) {
      const chosen = Number(signerSelect.value);
      signers = next;
      signerSelect.replaceChildren(
        ...signers.map((s) =>
          h('option', { value: s.key, selected: s.key === chosen }, s.name || `Signer ${s.index + 1}`),
        ),
      );
      for (const f of [...fields]) {
        if (signers.some((s) => s.key === f.signer)) place(f);
        else remove(f);
      }
      for (const f of fields) {
        const who = f.box.querySelector('.env-field-who');
        if (who) who.textContent = signerOf(f)?.name ?? '';
      }
      showSigner();
      refreshControls();
    },
    fieldsOf(signer) {
      return fields
        .filter((f) => f.signer === signer)
        .map((f) => ({
          type: f.type,
          page: f.page,
          x: floor2(f.x),
          y: floor2(f.y),
          width: floor2(f.width),
          height: floor2(f.height),
          required: f.required,
          ...(f.label ? { label: f.label } : {}),
        }));
    },
    focusField(signer, index) {
      const f = fields.filter((other) => other.signer === signer)[index];
      if (!f) return false;
      f.box.scrollIntoView({ block: 'center' });
      f.box.focus();
      return true;
    },
  };
};

/**
 * A signature pad: draw with a mouse, finger or pen (pointer events, pen pressure), or type a name
 * shown in a handwriting font (Caveat, bundled: no third-party requests); pick a colour; clear.
 * Everything is reachable with the keyboard: the mode and colour are radio groups, the typed name is
 * a text field, Clear is a button (drawing itself needs a pointer; the pad says so and offers Type).
 *
 * The value matches the API's signature: `{ mode: 'draw', imageBase64 }` (a transparent PNG, 3:1, the
 * box's shape on the page) or `{ mode: 'type', typedName, color }` (the signer sets the name in its
 * own handwriting font). `toPng()` gives a PNG of either mode for previews.
 *
 * Stable API (used by more than one page): `createSignaturePad`, `SignaturePad`, `SignatureValue`,
 * `SIGNATURE_COLORS`, `SIGNATURE_ASPECT`.
 */
import caveatUrl from '@expo-google-fonts/caveat/600SemiBold/Caveat_600SemiBold.ttf?url';
import { h } from './dom';

export type SignatureMode = 'draw' | 'type';

export type SignatureValue =
  { mode: 'draw'; imageBase64: string } | { mode: 'type'; typedName: string; color: string };

export interface SignatureColor {
  name: string;
  /** `#rrggbb` */
  value: string;
}

export const SIGNATURE_COLORS: readonly SignatureColor[] = [
  { name: 'Black', value: '#111827' },
  { name: 'Blue', value: '#1e3a8a' },
  { name: 'Green', value: '#14532d' },
  { name: 'Red', value: '#991b1b' },
];

/** Height / width of the pad and of the image it exports (the box on the page has this shape). */
export const SIGNATURE_ASPECT = 1 / 3;

export interface SignaturePadOptions {
  /** Unique prefix for element ids (default "sig"), when a page holds more than one pad. */
  idPrefix?: string;
  colors?: readonly SignatureColor[];
  /** `#rrggbb`; default the first colour. */
  color?: string;
  mode?: SignatureMode;
  /** Prefill of the typed name (e.g. the recipient's name). */
  typedName?: string;
  /** Width in pixels of the exported image (default 900; height is a third of it). */
  exportWidth?: number;
}

export interface SignaturePad {
  /** The pad's root element (already appended to the container). */
  element: HTMLElement;
  readonly mode: SignatureMode;
  setMode(mode: SignatureMode): void;
  readonly color: string;
  setColor(color: string): void;
  /** The typed name (type mode). */
  typedName: string;
  /** True when there is nothing to sign with: no stroke (draw) or a blank name (type). */
  isEmpty(): boolean;
  /** Removes every stroke and the typed name. */
  clear(): void;
  /** The signature as the API takes it, or `undefined` when empty. */
  value(): SignatureValue | undefined;
  /** A PNG of what is shown (either mode), or `undefined` when empty. */
  toPng(): { dataUrl: string; base64: string; width: number; height: number } | undefined;
  /** Called after every change (stroke, text, colour, mode, clear). Returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Moves the keyboard focus to the pad's first control for the current mode. */
  focus(): void;
  destroy(): void;
}

const FONT_FAMILY = 'esign-signature';
let fontLoading: Promise<void> | undefined;

/** Loads the handwriting font once (from this origin). Resolves even if it fails (a fallback is used). */
export const loadSignatureFont = (): Promise<void> => {
  fontLoading ??= (async () => {
    try {
      const face = new FontFace(FONT_FAMILY, `url(${caveatUrl})`, { weight: '600' });
      document.fonts.add(await face.load());
    } catch {
      // the cursive fallback is shown instead
    }
  })();
  return fontLoading;
};

interface Point {
  x: number;
  y: number;
  /** 0..1; 0.5 for devices without pressure. */
  p: number;
}

/** Builds a pad inside `container`. Style hooks: `.sig-pad`, `.sig-canvas`, `.sig-colors`, ... */
export const createSignaturePad = (
  container: HTMLElement,
  options: SignaturePadOptions = {},
): SignaturePad => {
  const id = options.idPrefix ?? 'sig';
  const colors = options.colors ?? SIGNATURE_COLORS;
  const exportWidth = options.exportWidth ?? 900;
  const exportHeight = Math.round(exportWidth * SIGNATURE_ASPECT);
  let mode: SignatureMode = options.mode ?? 'draw';
  let color = options.color ?? colors[0]?.value ?? '#111827';
  const strokes: Point[][] = [];
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());

  const root = h('div', { class: 'sig-pad' });

  // Mode: a radio group (arrow keys move between Draw and Type).
  const modes = h('fieldset', { class: 'sig-modes' });
  modes.append(h('legend', {}, 'How to sign'));
  const modeInputs = new Map<SignatureMode, HTMLInputElement>();
  for (const [value, label] of [
    ['draw', 'Draw'],
    ['type', 'Type'],
  ] as const) {
    const input = h('input', { type: 'radio', name: `${id}-mode`, value, id: `${id}-mode-${value}` });
    input.checked = value === mode;
    input.addEventListener('change', () => input.checked && setMode(value));
    const lab = h('label', { for: input.id, class: 'sig-mode' });
    lab.append(input, document.createTextNode(` ${label}`));
    modes.append(lab);
    modeInputs.set(value, input);
  }

  // Colour: a radio group of swatches.
  const colorSet = h('fieldset', { class: 'sig-colors' });
  colorSet.append(h('legend', {}, 'Colour'));
  const colorInputs: HTMLInputElement[] = [];
  for (const c of colors) {
    const input = h('input', {
      type: 'radio',
      name: `${id}-color`,
      value: c.value,
      id: `${id}-color-${c.value.slice(1)}`,
    });
    input.checked = c.value.toLowerCase() === color.toLowerCase();
    input.addEventListener('change', () => input.checked && setColor(c.value));
    const lab = h('label', { for: input.id, class: 'sig-color', title: c.name });
    const swatch = h('span', { class: 'sig-swatch', 'aria-hidden': 'true' });
    swatch.style.background = c.value;
    lab.append(input, swatch, h('span', { class: 'sig-color-name' }, c.name));
    colorSet.append(lab);
    colorInputs.push(input);
  }

  // Draw mode: the canvas.
  const drawBox = h('div', { class: 'sig-draw' });
  const canvas = h('canvas', {
    class: 'sig-canvas',
    id: `${id}-canvas`,
    tabindex: '0',
    role: 'img',
    'aria-label':
      'Signature drawing area: draw with a mouse, finger or pen. To sign with the keyboard, choose Type.',
  });
  canvas.width = exportWidth;
  canvas.height = exportHeight;
  canvas.style.width = '100%';
  canvas.style.aspectRatio = `${exportWidth} / ${exportHeight}`;
  canvas.style.touchAction = 'none';
  canvas.style.display = 'block';
  const drawHint = h('p', { class: 'sig-hint', id: `${id}-draw-hint` }, 'Draw your signature above.');
  canvas.setAttribute('aria-describedby', drawHint.id);
  drawBox.append(canvas, drawHint);

  // Type mode: a text field and a preview in the handwriting font.
  const typeBox = h('div', { class: 'sig-type' });
  const typeLabel = h('label', { for: `${id}-typed` }, 'Type your signature');
  const typeInput = h('input', {
    type: 'text',
    id: `${id}-typed`,
    autocomplete: 'name',
    maxlength: '200',
    spellcheck: 'false',
  });
  typeInput.value = options.typedName ?? '';
  const preview = h('div', { class: 'sig-typed-preview', 'aria-hidden': 'true' });
  preview.style.fontFamily = `${FONT_FAMILY}, cursive`;
  preview.style.fontWeight = '600';
  typeBox.append(typeLabel, typeInput, preview);
  typeInput.addEventListener('input', () => {
    renderPreview();
    changed();
  });

  const clearButton = h('button', { type: 'button', class: 'sig-clear' }, 'Clear');
  clearButton.addEventListener('click', () => {
    clear();
    focus();
  });

  root.append(modes, colorSet, drawBox, typeBox, clearButton);
  container.append(root);

  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('This browser cannot draw on a canvas.');

  const lineWidth = (p: number) => (exportWidth / 150) * (0.6 + p * 0.8);

  const drawSegment = (a: Point, b: Point) => {
    ctx.strokeStyle = color;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.lineWidth = lineWidth((a.p + b.p) / 2);
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.stroke();
  };
  const drawDot = (a: Point) => {
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.arc(a.x, a.y, lineWidth(a.p) / 2, 0, Math.PI * 2);
    ctx.fill();
  };
  const redraw = () => {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    for (const stroke of strokes) {
      if (stroke.length === 1 && stroke[0]) drawDot(stroke[0]);
      for (let i = 1; i < stroke.length; i++) drawSegment(stroke[i - 1] as Point, stroke[i] as Point);
    }
  };

  const pointOf = (event: PointerEvent): Point => {
    const rect = canvas.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / (rect.width || 1)) * canvas.width;
    const y = ((event.clientY - rect.top) / (rect.height || 1)) * canvas.height;
    const p = event.pointerType === 'pen' && event.pressure > 0 ? event.pressure : 0.5;
    return {
      x: Math.max(0, Math.min(canvas.width, x)),
      y: Math.max(0, Math.min(canvas.height, y)),
      p,
    };
  };

  let active: { pointerId: number; stroke: Point[] } | undefined;
  const onDown = (event: PointerEvent) => {
    if (mode !== 'draw' || active || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    canvas.setPointerCapture(event.pointerId);
    const stroke = [pointOf(event)];
    strokes.push(stroke);
    active = { pointerId: event.pointerId, stroke };
    drawDot(stroke[0] as Point);
  };
  const onMove = (event: PointerEvent) => {
    if (!active || event.pointerId !== active.pointerId) return;
    event.preventDefault();
    const events = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
    for (const e of events.length > 0 ? events : [event]) {
      const point = pointOf(e);
      const last = active.stroke[active.stroke.length - 1] as Point;
      active.stroke.push(point);
      drawSegment(last, point);
    }
  };
  const onUp = (event: PointerEvent) => {
    if (!active || event.pointerId !== active.pointerId) return;
    active = undefined;
    drawHint.textContent = 'Signature drawn. Use Clear to start again.';
    changed();
  };
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointercancel', onUp);
  // Keyboard on the canvas: Delete/Backspace clears; T switches to typing.
  canvas.addEventListener('keydown', (event) => {
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      clear();
    } else if (event.key === 't' || event.key === 'T') {
      event.preventDefault();
      setMode('type');
      typeInput.focus();
    }
  });

  const renderPreview = () => {
    preview.textContent = typeInput.value;
    preview.style.color = color;
  };

  const show = () => {
    drawBox.hidden = mode !== 'draw';
    typeBox.hidden = mode !== 'type';
    root.dataset.mode = mode;
    for (const [value, input] of modeInputs) input.checked = value === mode;
  };

  function setMode(next: SignatureMode) {
    if (next === mode) return;
    mode = next;
    show();
    if (mode === 'type') void loadSignatureFont();
    changed();
  }
  function setColor(next: string) {
    if (!/^#[0-9a-fA-F]{6}$/.test(next)) throw new Error(`not a #rrggbb colour: ${next}`);
    color = next;
    for (const input of colorInputs) input.checked = input.value.toLowerCase() === next.toLowerCase();
    redraw();
    renderPreview();
    changed();
  }
  function clear() {
    strokes.length = 0;
    active = undefined;
    if (mode === 'type') typeInput.value = '';
    redraw();
    renderPreview();
    drawHint.textContent = 'Draw your signature above.';
    changed();
  }
  function focus() {
    (mode === 'draw' ? canvas : typeInput).focus();
  }

  const isEmpty = () =>
    mode === 'draw' ? !strokes.some((s) => s.length > 0) : typeInput.value.trim().length === 0;

  const typedPng = (): HTMLCanvasElement => {
    const out = document.createElement('canvas');
    out.width = exportWidth;
    out.height = exportHeight;
    const c = out.getContext('2d');
    if (!c) return out;
    const text = typeInput.value.trim();
    let size = exportHeight * 0.7;
    c.font = `600 ${size}px ${FONT_FAMILY}, cursive`;
    const measured = c.measureText(text).width;
    if (measured > exportWidth * 0.94) size *= (exportWidth * 0.94) / measured;
    c.font = `600 ${size}px ${FONT_FAMILY}, cursive`;
    c.fillStyle = color;
    c.textAlign = 'center';
    c.textBaseline = 'middle';
    c.fillText(text, exportWidth / 2, exportHeight / 2);
    return out;
  };

  const toPng = () => {
    if (isEmpty()) return undefined;
    const source = mode === 'draw' ? canvas : typedPng();
    const dataUrl = source.toDataURL('image/png');
    return {
      dataUrl,
      base64: dataUrl.slice(dataUrl.indexOf(',') + 1),
      width: source.width,
      height: source.height,
    };
  };

  show();
  renderPreview();
  if (mode === 'type') void loadSignatureFont();

  return {
    element: root,
    get mode() {
      return mode;
    },
    setMode,
    get color() {
      return color;
    },
    setColor,
    get typedName() {
      return typeInput.value;
    },
    set typedName(value: string) {
      typeInput.value = value;
      renderPreview();
      changed();
    },
    isEmpty,
    clear,
    value: () => {
      if (isEmpty()) return undefined;
      if (mode === 'type') return { mode: 'type', typedName: typeInput.value.trim(), color };
      const png = toPng();
      return png ? { mode: 'draw', imageBase64: png.base64 } : undefined;
    },
    toPng,
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    focus,
    destroy: () => {
      listeners.clear();
      root.remove();
    },
  };
};

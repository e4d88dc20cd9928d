import { h } from '../shared/dom';

// The dashboard's own building blocks (formats, messages, form fields), on the shared `h()`.

/** `2026-11-23T23:10:05.123Z` → `2026-11-23 23:10 UTC` (one unambiguous format everywhere). */
export const formatTime = (iso: string | null | undefined): string =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—';

export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : bytes >= 1024
      ? `${Math.round(bytes / 1024)} KB`
      : `${bytes} bytes`;

/** A message box: `role="alert"` for errors (read out at once), `status` otherwise. */
export const message = (kind: 'error' | 'info' | 'success', text: string): HTMLElement =>
  h('p', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);

/** A labelled form field (label above the control, hint below it, tied by aria-describedby). */
export const field = (label: string, control: HTMLElement, hint?: string): HTMLElement => {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintEl = hint ? h('small', { id: `${id}-hint`, class: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
};

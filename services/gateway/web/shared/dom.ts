/**
 * The DOM helpers of every page (dashboard, signing page, verify page). `h()` is a tiny element
 * builder: text is always set as text (never parsed as HTML), so nothing a user or the server wrote
 * can become markup. `on*` props add event listeners; `true` sets a boolean attribute.
 */
export type Child = Node | string | number | null | undefined | false;
export type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
};

/** An element the page's HTML must have; a missing one is a bug in the page, so it throws. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

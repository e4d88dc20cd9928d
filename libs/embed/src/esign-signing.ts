/**
 * `<esign-signing url="…">`: the signing page of an embedded envelope recipient inside your page. Give
 * it the `url` of `POST /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/signing-url` (made
 * for this page view: it opens once); it frames the page and re-emits what the page tells it as DOM
 * events on the element: `esign:loaded`, `esign:viewed`, `esign:signed`, `esign:approved`,
 * `esign:declined`, `esign:error`, each with the page's `detail`. At most one `esign:error` per URL, none
 * after `esign:signed`, `esign:approved` or `esign:declined`. A plain custom element, no framework
 * and no dependency; importing this module defines it.
 *
 * Only messages from the framed page itself count: `event.source` must be this element's iframe and
 * `event.origin` the url's origin. The signing page, for its part, posts only to the origin framing it
 * when that origin is one of the account's embed origins (`PUT /api/v1/account/embed-origins`), and the
 * gateway's `frame-ancestors` keeps any other origin from framing it at all.
 */

/** What the signing page tells its parent. */
export const ESIGN_EVENT_TYPES = ['loaded', 'viewed', 'signed', 'approved', 'declined', 'error'] as const;
export type EsignEventType = (typeof ESIGN_EVENT_TYPES)[number];

/** A message of the signing page, as it posts it (`{ source: 'esign', type, detail }`). */
export interface EsignMessage {
  readonly type: EsignEventType;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** The signing page's message in `data`, or undefined for anything else a frame may post. */
export const esignMessageOf = (data: unknown): EsignMessage | undefined => {
  if (data === null || typeof data !== 'object') return undefined;
  const { source, type, detail } = data as Record<string, unknown>;
  if (source !== 'esign' || !ESIGN_EVENT_TYPES.includes(type as EsignEventType)) return undefined;
  const safeDetail =
    detail !== null && typeof detail === 'object' && !Array.isArray(detail)
      ? (detail as Record<string, unknown>)
      : {};
  return { type: type as EsignEventType, detail: safeDetail };
};

/**
 * Which of the page's messages the element passes on, for one signing URL: at most one `error`, and
 * no `error` once the recipient signed, approved or declined (the page keeps to this itself; the
 * element holds to it whatever a page posts).
 */
export const createEventGate = (): ((type: EsignEventType) => boolean) => {
  let acted = false;
  let erred = false;
  return (type) => {
    if (type === 'error') {
      if (acted || erred) return false;
      erred = true;
    }
    if (type === 'signed' || type === 'approved' || type === 'declined') acted = true;
    return true;
  };
};

/** The origin of a signing URL (resolved against `base`), or undefined when it is not http(s). */
export const signingOriginOf = (url: string, base: string): string | undefined => {
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
};

/**
 * What the frame may do: run the page's scripts, submit its forms, and be its own origin (its calls to
 * the gateway and pdf.js's worker need it). No popups, no top navigation, no downloads.
 */
export const SIGNING_FRAME_SANDBOX = 'allow-scripts allow-forms allow-same-origin';

const STYLE =
  ':host{display:block;min-height:480px}iframe{display:block;width:100%;height:100%;min-height:inherit;border:0}';

const defineElement = (): void => {
  class EsignSigningElement extends HTMLElement {
    static readonly observedAttributes = ['url', 'title'];
    #frame: HTMLIFrameElement | undefined;
    #origin: string | undefined;
    #passes = createEventGate();
    readonly #root: ShadowRoot;

    constructor() {
      super();
      this.#root = this.attachShadow({ mode: 'open' });
    }

    /** The signing URL shown (the `url` attribute). */
    get url(): string {
      return this.getAttribute('url') ?? '';
    }

    set url(value: string) {
      this.setAttribute('url', value);
    }

    readonly #onMessage = (event: MessageEvent): void => {
      const frame = this.#frame;
      if (!frame || event.source !== frame.contentWindow || event.origin !== this.#origin) return;
      const message = esignMessageOf(event.data);
      if (!message || !this.#passes(message.type)) return;
      this.dispatchEvent(
        new CustomEvent(`esign:${message.type}`, { detail: message.detail, bubbles: true, composed: true }),
      );
    };

    connectedCallback(): void {
      window.addEventListener('message', this.#onMessage);
      this.#render();
    }

    disconnectedCallback(): void {
      window.removeEventListener('message', this.#onMessage);
    }

    attributeChangedCallback(name: string, previous: string | null, value: string | null): void {
      if (!this.isConnected || previous === value) return;
      if (name === 'title' && this.#frame) this.#frame.title = value ?? 'Signing page';
      else this.#render();
    }

    #render(): void {
      const url = this.url;
      const origin = url ? signingOriginOf(url, document.baseURI) : undefined;
      this.#frame = undefined;
      this.#origin = origin;
      this.#passes = createEventGate();
      const style = document.createElement('style');
      style.textContent = STYLE;
      if (!origin) {
        this.#root.replaceChildren(style);
        if (url) {
          this.dispatchEvent(
            new CustomEvent('esign:error', {
              detail: { message: 'url must be an http(s) signing URL' },
              bubbles: true,
              composed: true,
            }),
          );
        }
        return;
      }
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', SIGNING_FRAME_SANDBOX);
      // The page's fallback where ancestorOrigins is missing: document.referrer carries our origin.
      frame.referrerPolicy = 'origin';
      frame.title = this.getAttribute('title') ?? 'Signing page';
      frame.src = new URL(url, document.baseURI).href;
      this.#frame = frame;
      this.#root.replaceChildren(style, frame);
    }
  }
  if (!customElements.get('esign-signing')) customElements.define('esign-signing', EsignSigningElement);
};

// Defined on import in a browser; elsewhere (server rendering, tests) the helpers above still load.
if (typeof HTMLElement !== 'undefined' && typeof customElements !== 'undefined') defineElement();

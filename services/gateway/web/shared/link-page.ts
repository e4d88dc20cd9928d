/**
 * What the two signing-link pages share: the send's page (signing/, `/s/<token>`) and the envelope's
 * (envelope/, `/e/<token>`). Both call the gateway with the link's token in the `X-Signing-Token`
 * header (never in another URL), draw the document into #document with progress on #status, show a
 * failure of their own in #error, run one act at a time (sign, approve, decline) with its buttons
 * disabled, decline through the same form, and end on one screen (#done): acted, or the link ended
 * (410, why in the body's `status`) or never was (404), in the gateway's words.
 *
 * Both pages' HTML has these ids: sender-message (-from, -text), status, error, document, done,
 * done-heading, done-message, and the decline form's decline-open, decline-form, decline-reason,
 * decline-error, decline-button, decline-close. Everything the server wrote is shown as text.
 */
import { MAX_DECLINE_REASON_LENGTH } from '@esign/contracts/constants';
import type { Middleware } from 'openapi-fetch';
import { byId } from './dom';
import { ApiError, createApiClient, type ApiClient } from './http';
import { renderPdf, type PdfPageView } from './pdf-view';

/** A client for the link's calls: each one carries `token` in the `X-Signing-Token` header. */
export const createLinkClient = (token: string): ApiClient => {
  const withToken: Middleware = {
    onRequest({ request }) {
      request.headers.set('X-Signing-Token', token);
    },
  };
  return createApiClient(withToken);
};

/** Shows `message` in `el` as text; an empty message hides it. */
export const show = (el: HTMLElement, message: string): void => {
  el.textContent = message;
  el.hidden = message === '';
};

/** A failure as the page words it: the gateway's message, else a plain request to reload. */
export const messageOf = (err: unknown): string =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please reload the page and try again.';

/** A day as the reader's locale writes it in full (the link's expiry). */
export const formatDate = (iso: string): string =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

/**
 * The sender's message (`#sender-message`) under "Message from <sender>", as the email shows it: text
 * only, whatever markup it holds shown and never interpreted. Nothing without a message.
 */
export const showSenderMessage = (request: { senderEmail: string; message?: string | null }): void => {
  if (!request.message) return;
  byId('sender-message-from').textContent = `Message from ${request.senderEmail}`;
  byId('sender-message-text').textContent = request.message;
  byId('sender-message').hidden = false;
};

/** What an ended or unknown link, or a failure of the page itself, is reported as (`onError`). */
export interface LinkPageError {
  /** The 410's reason, or `not_found` for a 404; none for any other failure. */
  status?: string;
  message: string;
}

/** One act of the page: a call, where its failure is shown, and what follows its success. */
export interface LinkAct<T> {
  call: () => Promise<T>;
  /** Where a failure other than an ended link is shown (cleared when the act starts). */
  error: HTMLElement;
  /** The status line while the call runs (cleared again when it fails). */
  working?: string;
  done: (answer: T) => void;
}

export interface LinkPage {
  /** #document, where the pages are drawn. */
  readonly documentView: HTMLElement;
  /** True while an act runs (its buttons and the decline form's are disabled meanwhile). */
  readonly isBusy: () => boolean;
  /**
   * Ends the page on the done screen with `heading` and `message`: the actions and any error put away,
   * the document kept only when `keepDocument` (the recipient acted on it).
   */
  readonly finish: (heading: string, message: string, keepDocument?: boolean) => void;
  /** Ends the page when `err` is a 410 (the heading for its status) or a 404; true when it did. */
  readonly endedBy: (err: unknown) => boolean;
  /** A failure of the page itself (loading): ends the page when the link ended, else shows it in #error. */
  readonly failed: (err: unknown) => void;
  /**
   * Draws the PDF `load` fetches into #document, `place` putting the overlays on its pages, and says
   * how many pages it has; false when it failed (shown as `failed` does).
   */
  readonly showDocument: (input: {
    load: () => Promise<ArrayBuffer>;
    maxPages?: number;
    place: (pages: PdfPageView[]) => void;
  }) => Promise<boolean>;
  /** Runs one act (see `LinkAct`), unless one is running already. */
  readonly act: <T>(input: LinkAct<T>) => void;
}

export interface LinkPageOptions<S extends string> {
  /** The panel of the page's actions, hidden when the page ends. */
  panel: HTMLElement;
  /** The done screen's heading for each reason a 410 gives (`expired` when it gives none). */
  endedHeadings: Readonly<Record<S | 'expired', string>>;
  /** The page's own act buttons, disabled while an act runs (the decline form's are added). */
  actButtons: HTMLButtonElement[];
  /** Sends the decline with its reason; `declined` follows its success. */
  decline: { send: (reason: string) => Promise<unknown>; declined: () => void };
  /** More to put away when the page ends. */
  onFinish?: () => void;
  /** Told of an ended or unknown link and of a failure of the page itself (not of a refused act). */
  onError?: (error: LinkPageError) => void;
  /** How the page words a failure (default: `messageOf`). */
  messageOf?: (err: unknown) => string;
}

const isKeyOf = <K extends string>(record: Readonly<Record<K, string>>, key: unknown): key is K =>
  typeof key === 'string' && Object.hasOwn(record, key);

/** The frame of a link page around its own content: see the module's comment. */
export const createLinkPage = <S extends string>(options: LinkPageOptions<S>): LinkPage => {
  const { panel, endedHeadings } = options;
  const wordsOf = options.messageOf ?? messageOf;
  const statusLine = byId('status');
  const errorBox = byId('error');
  const documentView = byId('document');
  const done = byId('done');
  const declineOpen = byId<HTMLButtonElement>('decline-open');
  const declineForm = byId<HTMLFormElement>('decline-form');
  const declineReason = byId<HTMLTextAreaElement>('decline-reason');
  declineReason.maxLength = MAX_DECLINE_REASON_LENGTH;
  const declineError = byId('decline-error');
  const declineButton = byId<HTMLButtonElement>('decline-button');
  const declineClose = byId<HTMLButtonElement>('decline-close');

  let busy = false;
  const setBusy = (value: boolean) => {
    busy = value;
    for (const button of [...options.actButtons, declineButton, declineOpen]) button.disabled = value;
  };

  const finish = (heading: string, message: string, keepDocument = false) => {
    panel.hidden = true;
    options.onFinish?.();
    documentView.hidden = !keepDocument;
    show(errorBox, '');
    statusLine.textContent = '';
    byId('done-heading').textContent = heading;
    byId('done-message').textContent = message;
    done.hidden = false;
    done.focus();
  };

  const endedBy = (err: unknown): boolean => {
    if (!(err instanceof ApiError)) return false;
    if (err.status === 410) {
      const body: unknown = err.body;
      const reason = body !== null && typeof body === 'object' && 'status' in body ? body.status : undefined;
      const status = isKeyOf(endedHeadings, reason) ? reason : 'expired';
      finish(endedHeadings[status], err.message);
      options.onError?.({ status, message: err.message });
      return true;
    }
    if (err.status === 404) {
      finish('Link not valid', err.message);
      options.onError?.({ status: 'not_found', message: err.message });
      return true;
    }
    return false;
  };

  const failed = (err: unknown) => {
    if (endedBy(err)) return;
    const message = wordsOf(err);
    show(errorBox, message);
    options.onError?.({ message });
  };

  const showDocument: LinkPage['showDocument'] = async ({ load, maxPages, place }) => {
    statusLine.textContent = 'Loading the document…';
    try {
      const bytes = await load();
      const pdf = await renderPdf(documentView, { data: bytes }, { maxPages });
      place(pdf.pages);
      documentView.setAttribute('aria-busy', 'false');
      statusLine.textContent = `The document has ${pdf.pageCount} page${pdf.pageCount === 1 ? '' : 's'}.`;
      return true;
    } catch (err) {
      statusLine.textContent = '';
      failed(err);
      return false;
    }
  };

  const act = <T>({ call, error, working, done: after }: LinkAct<T>) => {
    if (busy) return;
    show(error, '');
    setBusy(true);
    if (working !== undefined) statusLine.textContent = working;
    void call()
      .then(after)
      .catch((err: unknown) => {
        if (working !== undefined) statusLine.textContent = '';
        if (endedBy(err)) return;
        show(error, wordsOf(err));
        setBusy(false);
      });
  };

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
    act({ call: () => options.decline.send(reason), error: declineError, done: options.decline.declined });
  });

  return {
    documentView,
    isBusy: () => busy,
    finish,
    endedBy,
    failed,
    showDocument,
    act,
  };
};

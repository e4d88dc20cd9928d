import './dashboard.css';
import { answerOf, ApiError } from '../shared/http';
import { client, SESSION_ENDED, setCsrfToken, type Session } from './api';
import type { View, ViewContext } from './context';
import { byId, h } from '../shared/dom';
import { message } from './ui';
import { currentRoute, navigate, type Route } from './router';
import {
  renderSignIn,
  renderSignInLinkRedeem,
  renderSignInLinkRequest,
  renderSignUp,
  setNotice,
} from './views/auth';
import { renderDocument, renderDocuments } from './views/documents';
import { renderEmbedding } from './views/embedding';
import { renderKeys } from './views/keys';
import { renderPlan } from './views/plan';
import { renderSent } from './views/sent';
import { renderSign } from './views/sign';
import { renderWebhooks } from './views/webhooks/index';
import { renderNewEnvelope } from './views/envelopes/create';
import { renderEnvelope } from './views/envelopes/detail';
import { renderEnvelopes } from './views/envelopes/list';

const PUBLIC_VIEWS: Record<string, { title: string; render: View }> = {
  'sign-in': { title: 'Sign in', render: renderSignIn },
  'sign-up': { title: 'Create an account', render: renderSignUp },
  'sign-in-link': { title: 'Sign in with an email link', render: renderSignInLinkRequest },
  link: { title: 'Finish signing in', render: renderSignInLinkRedeem },
};
const VIEWS: Record<string, { title: string; render: View }> = {
  documents: { title: 'Documents', render: renderDocuments },
  document: { title: 'Document', render: renderDocument },
  sign: { title: 'Sign a document', render: renderSign },
  sent: { title: 'Sent for signing', render: renderSent },
  envelopes: { title: 'Envelopes', render: renderEnvelopes },
  envelope: { title: 'Envelope', render: renderEnvelope },
  'new-envelope': { title: 'New envelope', render: renderNewEnvelope },
  keys: { title: 'API keys', render: renderKeys },
  webhooks: { title: 'Webhooks', render: renderWebhooks },
  embedding: { title: 'Embedding', render: renderEmbedding },
  plan: { title: 'Plan & usage', render: renderPlan },
};

const main = byId('main');
const nav = byId('nav');
const account = byId('account');
const accountEmail = byId('account-email');
const signOutButton = byId<HTMLButtonElement>('sign-out');

let session: Session | undefined;

const loadSession = async (): Promise<Session | undefined> => {
  try {
    session = await answerOf(client.GET('/api/session'));
    setCsrfToken(session.csrfToken);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401) throw err;
    session = undefined;
  }
  return session;
};

const showChrome = (route: Route): void => {
  nav.hidden = !session;
  account.hidden = !session;
  accountEmail.textContent = session?.email ?? '';
  for (const link of nav.querySelectorAll('a')) {
    const name = link.getAttribute('href')?.slice(2) ?? '';
    const current =
      name === route.name ||
      (name === 'documents' && route.name === 'document') ||
      (name === 'envelopes' && (route.name === 'envelope' || route.name === 'new-envelope'));
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
};

let rendering = 0;
let shownView = '';
const render = async (): Promise<void> => {
  const turn = ++rendering;
  const route = currentRoute();
  const publicView = PUBLIC_VIEWS[route.name];
  const view = VIEWS[route.name];
  const chosen = publicView ?? view;
  if (!chosen) {
    navigate(session ? '#/documents' : '#/sign-in');
    return;
  }
  if (view && !session) {
    navigate('#/sign-in');
    return;
  }
  if (publicView && session) {
    navigate('#/documents');
    return;
  }
  showChrome(route);
  document.title = `${chosen.title} · esign`;
  main.replaceChildren();
  const context: ViewContext = {
    main,
    route,
    session: session as Session,
    refreshSession: loadSession,
    signedIn: (next, to = '#/documents') => {
      session = next;
      setCsrfToken(next.csrfToken);
      navigate(to);
    },
  };
  // Move focus to a new view's heading, so keyboard and screen-reader users start there (not when
  // the same view only changed its query, such as a documents filter: focus stays in the form). Most
  // views put their heading up before loading their data: focus goes there at once, so a keyboard
  // user can move on while the data loads, and is not pulled back when it arrives.
  const newView = shownView !== route.name || route.param !== undefined;
  shownView = route.name;
  const focusHeading = (): boolean => {
    const heading = main.querySelector('h1');
    if (!heading) return false;
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    return true;
  };
  let drawn: Promise<void> | void;
  try {
    drawn = chosen.render(context);
  } catch (err) {
    drawn = Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  const focused = newView && focusHeading();
  try {
    await drawn;
  } catch (err) {
    if (turn !== rendering) return;
    if (err instanceof ApiError && err.status === 401) {
      // The session ended (idle, signed out elsewhere): back to sign-in (the SESSION_ENDED
      // handler has usually gone there already; a second render would lose its notice).
      session = undefined;
      if (currentRoute().name !== 'sign-in') navigate('#/sign-in');
      return;
    }
    main.replaceChildren(
      h('h1', {}, chosen.title),
      message('error', err instanceof Error ? err.message : 'Something went wrong.'),
    );
    if (newView) focusHeading();
    return;
  }
  if (turn !== rendering) return;
  // A view that showed its heading only with its data: focus it now, unless the user moved on.
  const active = document.activeElement;
  if (newView && !focused && (active === null || active === document.body || active === main)) {
    focusHeading();
  }
};

signOutButton.addEventListener('click', () => {
  signOutButton.disabled = true;
  answerOf(client.POST('/api/auth/sign-out'))
    .catch(() => undefined)
    .finally(() => {
      session = undefined;
      signOutButton.disabled = false;
      navigate('#/sign-in');
    });
});

// The skip link moves focus to the content without touching the hash (the hash is the router's).
document.querySelector('.skip-link')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', () => void render());

// A request found the session ended: back to sign-in, saying why (once, not for every request).
window.addEventListener(SESSION_ENDED, () => {
  if (!session) return;
  session = undefined;
  setNotice('Your session ended. Please sign in again.');
  navigate('#/sign-in');
});

void (async () => {
  try {
    await loadSession();
  } catch (err) {
    main.replaceChildren(
      h('h1', {}, 'esign'),
      message('error', err instanceof Error ? err.message : 'The dashboard could not load.'),
    );
    return;
  }
  await render();
})();

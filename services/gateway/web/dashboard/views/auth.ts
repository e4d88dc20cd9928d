import { answerOf, ApiError } from '../../shared/http';
import { client } from '../api';
import { h } from '../../shared/dom';
import { field, message } from '../ui';
import type { ViewContext } from '../context';

/** A message for the next sign-in form (why the session ended). */
let notice: string | undefined;
export const setNotice = (text: string): void => {
  notice = text;
};

const form = (
  context: ViewContext,
  options: { title: string; submit: string; newPassword: boolean; intro: Node; footer: Node },
  onSubmit: (email: string, password: string, status: HTMLElement) => Promise<void>,
): void => {
  const email = h('input', {
    type: 'email',
    name: 'email',
    autocomplete: 'email',
    required: true,
    maxlength: 254,
  });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: options.newPassword ? 'new-password' : 'current-password',
    required: true,
    minlength: options.newPassword ? 8 : undefined,
    maxlength: 256,
  });
  const status = h('div', { class: 'form-status' });
  if (notice) status.append(message('info', notice));
  notice = undefined;
  const button = h('button', { type: 'submit' }, options.submit);
  const element = h(
    'form',
    { class: 'card narrow' },
    h('h1', {}, options.title),
    options.intro,
    field('Email', email),
    field('Password', password, options.newPassword ? 'At least 8 characters.' : undefined),
    status,
    h('div', { class: 'actions' }, button),
    options.footer,
  );
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    status.replaceChildren();
    onSubmit(email.value.trim(), password.value, status)
      .catch((err: unknown) => {
        status.replaceChildren(message('error', err instanceof Error ? err.message : String(err)));
        password.focus();
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  context.main.append(element);
};

const signInWith = async (context: ViewContext, email: string, password: string): Promise<void> => {
  try {
    await answerOf(client.POST('/api/auth/sign-in', { body: { email, password } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw new Error('Wrong email or password.');
    throw err;
  }
  const session = await context.refreshSession();
  if (!session) throw new Error('Signed in, but the session was not kept: are cookies allowed?');
  context.signedIn(session);
};

export const renderSignIn = (context: ViewContext): void =>
  form(
    context,
    {
      title: 'Sign in',
      submit: 'Sign in',
      newPassword: false,
      intro: h('p', {}, 'Sign in to manage your documents and API keys.'),
      footer: h(
        'div',
        {},
        h('p', { class: 'alt' }, h('a', { href: '#/sign-in-link' }, 'Email me a sign-in link instead')),
        h('p', { class: 'alt' }, 'No account yet? ', h('a', { href: '#/sign-up' }, 'Create one')),
      ),
    },
    (email, password) => signInWith(context, email, password),
  );

export const renderSignUp = (context: ViewContext): void =>
  form(
    context,
    {
      title: 'Create an account',
      submit: 'Create account',
      newPassword: true,
      intro: h('p', {}, 'New accounts start on the Free plan: 3 documents a month, signed here.'),
      footer: h('p', { class: 'alt' }, 'Have an account? ', h('a', { href: '#/sign-in' }, 'Sign in')),
    },
    async (email, password) => {
      await answerOf(client.POST('/api/auth/sign-up', { body: { email, password } }));
      // The answer is the same whether or not the address had an account: sign in to find out.
      try {
        await signInWith(context, email, password);
      } catch (err) {
        if (err instanceof Error && err.message === 'Wrong email or password.') {
          throw new Error('This email may already have an account with another password: sign in instead.');
        }
        throw err;
      }
    },
  );

/** Ask for a one-time sign-in link by email (the answer is the same whether or not there is an account). */
export const renderSignInLinkRequest = (context: ViewContext): void => {
  const email = h('input', {
    type: 'email',
    name: 'email',
    autocomplete: 'email',
    required: true,
    maxlength: 254,
  });
  const status = h('div', { class: 'form-status' });
  const button = h('button', { type: 'submit' }, 'Email me a link');
  const element = h(
    'form',
    { class: 'card narrow' },
    h('h1', {}, 'Sign in with an email link'),
    h('p', {}, 'We email you a link that signs you in once, within 15 minutes. No password needed.'),
    field('Email', email),
    status,
    h('div', { class: 'actions' }, button),
    h('p', { class: 'alt' }, h('a', { href: '#/sign-in' }, 'Sign in with a password')),
  );
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    answerOf(client.POST('/api/auth/sign-in-link', { body: { email: email.value.trim() } }))
      .then((answer) => status.replaceChildren(message('success', answer.message)))
      .catch((err: unknown) =>
        status.replaceChildren(message('error', err instanceof Error ? err.message : String(err))),
      )
      .finally(() => {
        button.disabled = false;
      });
  });
  context.main.append(element);
};

/**
 * An emailed link lands here (`#/link/<token>`). Opening it changes nothing (mail scanners follow
 * links); the button signs in. The token leaves the address bar and the history at once.
 */
export const renderSignInLinkRedeem = (context: ViewContext): void => {
  const token = context.route.param ?? '';
  history.replaceState(null, '', `${location.pathname}#/link`);
  const status = h('div', { class: 'form-status' });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const element = h(
    'form',
    { class: 'card narrow' },
    h('h1', {}, 'Finish signing in'),
    h('p', {}, 'This link signs you in to your eSign dashboard once.'),
    status,
    h('div', { class: 'actions' }, button),
    h('p', { class: 'alt' }, h('a', { href: '#/sign-in-link' }, 'Ask for a new link')),
  );
  if (!token) {
    status.replaceChildren(message('error', 'This link is incomplete: ask for a new one.'));
    button.disabled = true;
  }
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    button.disabled = true;
    answerOf(client.POST('/api/auth/sign-in-link/redeem', { body: { token } }))
      .then(async () => {
        const session = await context.refreshSession();
        if (!session) throw new Error('Signed in, but the session was not kept: are cookies allowed?');
        context.signedIn(session);
      })
      .catch((err: unknown) => {
        status.replaceChildren(message('error', err instanceof Error ? err.message : String(err)));
      });
  });
  context.main.append(element);
};

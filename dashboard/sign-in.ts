/**
 * The sign-in screen: the admin token, typed or pasted, kept in this tab's
 * sessionStorage once the issuer accepts it. A data dir made before the
 * dashboard existed has no token yet: the screen says how to make one.
 */
import { ApiProblem, createApi, storeToken } from './api.js';
import { h, fill } from './dom.js';
import { signInProblem } from './format.js';
import { languageMenu } from './language-menu.js';
import { t } from './messages/format.js';
import type { SessionInfo } from '../issuer/dashboard-api.js';

export interface SignInOptions {
  /** Shown above the form, e.g. why the last session ended. */
  notice?: string;
  /** The issuer said it has no admin token yet. */
  tokenNotSet?: boolean;
  onSignedIn(token: string, session: SessionInfo): void;
}

export function showSignIn(root: HTMLElement, options: SignInOptions): void {
  root.dataset.view = 'sign-in';
  const message = h('p', { id: 'sign-in-message', class: 'message', role: 'alert' }, options.notice ?? '');
  const howTo = h(
    'div',
    { id: 'token-how-to', class: 'how-to', hidden: !options.tokenNotSet },
    h('p', {}, t('signin.howto.make')),
    h('pre', {}, h('code', {}, t('signin.howto.command'))),
    h('p', {}, t('signin.howto.paste')),
  );
  const input = h('input', {
    id: 'admin-token',
    name: 'admin-token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'sign-in-message',
  });
  const button = h('button', { type: 'submit', class: 'primary' }, t('signin.submit'));
  const form = h(
    'form',
    { class: 'sign-in-form', novalidate: true },
    h('label', { for: 'admin-token' }, t('signin.token_label')),
    input,
    button,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') {
      message.textContent = t('signin.paste_first');
      input.focus();
      return;
    }
    button.disabled = true;
    message.textContent = t('signin.checking');
    createApi(token)
      .session()
      .then((session) => {
        storeToken(token);
        options.onSignedIn(token, session);
      })
      .catch((error: unknown) => {
        button.disabled = false;
        const problem = error instanceof ApiProblem ? error : null;
        message.textContent = problem === null ? t('signin.failed') : problem.status === 0 ? problem.message : signInProblem(problem);
        howTo.hidden = problem?.reason !== 'admin_token_not_set';
        input.select();
      });
  });
  fill(
    root,
    h(
      'main',
      { class: 'sign-in' },
      languageMenu(),
      h('h1', {}, t('signin.title')),
      h('p', { class: 'lead' }, t('signin.lead')),
      message,
      howTo,
      form,
    ),
  );
  input.focus();
}

/**
 * The sign-in screen: the admin token, typed or pasted, kept in this tab's
 * sessionStorage once the issuer accepts it. A data dir made before the
 * dashboard existed has no token yet: the screen says how to make one.
 */
import { ApiProblem, createApi, storeToken } from './api.js';
import { h, fill } from './dom.js';
import { signInProblem } from './format.js';
import type { SessionInfo } from '../issuer/dashboard-api.js';

export interface SignInOptions {
  /** Shown above the form, e.g. why the last session ended. */
  notice?: string;
  /** The issuer said it has no admin token yet. */
  tokenNotSet?: boolean;
  onSignedIn(token: string, session: SessionInfo): void;
}

const HOW_TO_MAKE_A_TOKEN = [
  'On the machine that runs the issuer, make one with:',
  'ticket-issuer admin-token reset --data <the issuer data dir>',
  'It prints the token once; paste it here. (ticket-issuer init prints one too.)',
];

export function showSignIn(root: HTMLElement, options: SignInOptions): void {
  root.dataset.view = 'sign-in';
  const message = h('p', { id: 'sign-in-message', class: 'message', role: 'alert' }, options.notice ?? '');
  const howTo = h(
    'div',
    { id: 'token-how-to', class: 'how-to', hidden: !options.tokenNotSet },
    h('p', {}, HOW_TO_MAKE_A_TOKEN[0]!),
    h('pre', {}, h('code', {}, HOW_TO_MAKE_A_TOKEN[1]!)),
    h('p', {}, HOW_TO_MAKE_A_TOKEN[2]!),
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
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'sign-in-form', novalidate: true }, h('label', { for: 'admin-token' }, 'Admin token'), input, button);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') {
      message.textContent = 'Paste the admin token first.';
      input.focus();
      return;
    }
    button.disabled = true;
    message.textContent = 'Checking…';
    createApi(token)
      .session()
      .then((session) => {
        storeToken(token);
        options.onSignedIn(token, session);
      })
      .catch((error: unknown) => {
        button.disabled = false;
        const problem = error instanceof ApiProblem ? error : null;
        message.textContent =
          problem === null ? 'Something went wrong. Try again.' : problem.status === 0 ? problem.message : signInProblem(problem);
        howTo.hidden = problem?.reason !== 'admin_token_not_set';
        input.select();
      });
  });
  fill(
    root,
    h(
      'main',
      { class: 'sign-in' },
      h('h1', {}, 'Issuer admin'),
      h('p', { class: 'lead' }, 'Live check-ins, alerts and scanners. Sign in with the admin token of this issuer.'),
      message,
      howTo,
      form,
    ),
  );
  input.focus();
}

/**
 * The on-site issuer panel of the Setup screen (Electron only: it needs
 * `window.onsiteIssuer`). A fresh install at a venue without internet can make
 * this laptop the issuer without command-line switches: name and address,
 * "Create and start", then the admin dashboard for the event, tickets and a
 * setup code. Built once per Setup screen, so a state push never throws away
 * what someone is typing.
 */
import { attempt } from '../kiosk-bridge.js';
import { el, replaceChildren } from '../dom.js';
import { t } from '../messages/format.js';
import type { OnsiteIssuerApi, OnsiteIssuerStatusView } from '../onsite-issuer-bridge-types.js';
import { initRequestFrom, issuerPanelView, type IssuerPanelMode } from '../view/onsite-issuer-view-model.js';

export const ISSUER_NAME_INPUT_ID = 'issuer-name-input';
export const ISSUER_URL_INPUT_ID = 'issuer-url-input';

export interface IssuerPanel {
  element: HTMLElement;
  /** Hidden while the Setup screen asks something else (the re-enroll question). */
  setVisible(visible: boolean): void;
}

/**
 * `unlocked`: the staff PIN check (screens/staff.ts); every issuer action but
 * reading its status is a staff function (docs/kiosk.md "Staff PIN"), and the
 * main process refuses it while locked.
 */
export function mountIssuerPanel(bridge: OnsiteIssuerApi, unlocked: () => Promise<boolean> = async () => true): IssuerPanel {
  const element = el('section', { class: 'issuer-panel', 'aria-label': t('issuer.title'), 'data-issuer-panel': '' });
  let status: OnsiteIssuerStatusView | null = null;
  let mode: IssuerPanelMode = 'closed';
  let busy = false;
  let problem: string | null = null;
  /** The admin token just made, shown until the panel changes state; never stored anywhere else. */
  let adminToken: string | null = null;

  const nameInput = el('input', {
    id: ISSUER_NAME_INPUT_ID,
    class: 'issuer-panel__input',
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '200',
  });
  const urlInput = el('input', {
    id: ISSUER_URL_INPUT_ID,
    class: 'issuer-panel__input',
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: '2000',
  });

  // Typing again answers "enter a name": its notice goes, without a re-render that would take the focus.
  nameInput.addEventListener('input', () => {
    if (problem === null || busy) return;
    problem = null;
    element.querySelector('[data-issuer-problem]')?.remove();
  });

  /** Runs one bridge call; its failure message (written for people by the main process) is shown as is. */
  const run = async (call: () => Promise<OnsiteIssuerStatusView | void>): Promise<void> => {
    if (!(await unlocked())) return;
    busy = true;
    problem = null;
    render();
    const result = await attempt(call);
    busy = false;
    if (result.ok && result.value) status = result.value;
    if (!result.ok) problem = t('issuer.failed', { message: result.error.message });
    render();
  };

  const button = (label: string, action: string, onClick: () => void, primary = false): HTMLButtonElement => {
    const node = el('button', { type: 'button', class: primary ? 'button button--primary' : 'button', 'data-action': action }, label);
    if (busy) node.disabled = true;
    node.addEventListener('click', onClick);
    return node;
  };

  function render(): void {
    if (!status) {
      replaceChildren(element);
      return;
    }
    const view = issuerPanelView(status, mode);
    if (view.kind !== 'running') adminToken = null;
    const footer = [
      busy ? el('p', { class: 'issuer-panel__busy', 'data-issuer-busy': '' }, t('issuer.working')) : null,
      problem ? el('p', { class: 'issuer-panel__problem', role: 'alert', 'data-issuer-problem': '' }, problem) : null,
    ];
    element.dataset['issuerState'] = view.kind;
    switch (view.kind) {
      case 'offer':
        replaceChildren(
          element,
          el('p', { class: 'issuer-panel__text' }, t('issuer.offer')),
          button(t('issuer.offer_button'), 'issuer-offer', () => {
            mode = 'form';
            problem = null;
            render();
            nameInput.focus();
          }),
          ...footer,
        );
        return;
      case 'form': {
        if (urlInput.value === '' && view.suggestedBaseUrl) urlInput.value = view.suggestedBaseUrl;
        const form = el(
          'form',
          { class: 'issuer-panel__form' },
          el('h2', { class: 'issuer-panel__title' }, t('issuer.title')),
          el('label', { for: ISSUER_NAME_INPUT_ID }, t('issuer.form.name')),
          nameInput,
          el('label', { for: ISSUER_URL_INPUT_ID }, t('issuer.form.base_url')),
          urlInput,
          el('p', { class: 'issuer-panel__hint' }, t('issuer.form.base_url_hint')),
          el(
            'div',
            { class: 'issuer-panel__buttons' },
            button(t('issuer.form.cancel'), 'issuer-cancel', () => {
              mode = 'closed';
              problem = null;
              render();
            }),
            el(
              'button',
              { type: 'submit', class: 'button button--primary', 'data-action': 'issuer-create', ...(busy ? { disabled: '' } : {}) },
              t('issuer.form.create'),
            ),
          ),
          ...footer,
        );
        form.addEventListener('submit', (event) => {
          event.preventDefault();
          if (busy) return;
          const request = initRequestFrom(nameInput.value, urlInput.value);
          if (!request) {
            problem = t('issuer.form.name_missing');
            render();
            nameInput.focus();
            return;
          }
          // init, then start: one button, because an issuer set up and not running helps nobody at the door.
          void run(async () => {
            status = await bridge.init(request);
            return bridge.start();
          });
        });
        replaceChildren(element, form);
        return;
      }
      case 'stopped':
        replaceChildren(
          element,
          el('p', { class: 'issuer-panel__text' }, t('issuer.stopped', { name: view.name })),
          button(t('issuer.start'), 'issuer-start', () => void run(() => bridge.start()), true),
          ...footer,
        );
        return;
      case 'running':
        replaceChildren(
          element,
          el('p', { class: 'issuer-panel__text', 'data-issuer-url': view.url }, t('issuer.running', { name: view.name, url: view.url })),
          el('p', { class: 'issuer-panel__hint' }, t('issuer.next_step')),
          ...view.warnings.map((warning) => el('p', { class: 'issuer-panel__problem' }, '⚠ ', warning)),
          el(
            'div',
            { class: 'issuer-panel__buttons' },
            button(
              t('issuer.new_token'),
              'issuer-new-token',
              () =>
                void run(async () => {
                  adminToken = (await bridge.resetAdminToken()).adminToken;
                }),
            ),
            button(t('issuer.open_admin'), 'issuer-open-admin', () => void run(async () => void (await bridge.openAdmin())), true),
          ),
          adminToken
            ? el(
                'div',
                { class: 'issuer-panel__token' },
                el('p', {}, t('issuer.token_shown')),
                el('code', { 'data-admin-token': '' }, adminToken),
              )
            : null,
          ...footer,
        );
        return;
    }
  }

  void run(() => bridge.status());
  return {
    element,
    setVisible(visible) {
      element.hidden = !visible;
    },
  };
}

/** The panel's fields are typed in by a person: the keyboard-wedge capture leaves them alone. */
export function isIssuerPanelInput(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && (target.id === ISSUER_NAME_INPUT_ID || target.id === ISSUER_URL_INPUT_ID);
}

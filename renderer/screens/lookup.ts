/** Status lookup: check a ticket without checking it in. Scan it, or type/paste a code or ticket ID. */
import { el, replaceChildren } from '../dom.js';
import { t } from '../messages/format.js';
import type { StatusView } from '../view/status-view-model.js';
import { undoCheckInButton } from './door-operations.js';
import { withHolderName } from './holder-name.js';
import type { ScreenHandle } from './screen.js';

export interface LookupProps {
  result: StatusView | null;
  busy: boolean;
  /** Staff's "Undo check-in" for the checked-in ticket shown (docs/kiosk.md "Annul at the door"), or null when not offered. */
  undoCheckIn?: (() => void) | null;
}

export interface LookupActions {
  submit(text: string): void;
  close(): void;
}

export const LOOKUP_INPUT_ID = 'lookup-input';

export function mountLookup(root: HTMLElement, actions: LookupActions): ScreenHandle<LookupProps> {
  // Built once: re-rendering must not throw away what the person is typing.
  const input = el('input', {
    id: LOOKUP_INPUT_ID,
    class: 'lookup__input',
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    'data-lookup-input': '',
  });
  const form = el(
    'form',
    { class: 'lookup__form' },
    el('label', { for: LOOKUP_INPUT_ID }, t('lookup.input_label')),
    el(
      'div',
      { class: 'lookup__row' },
      input,
      el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'lookup-submit' }, t('lookup.submit')),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text) actions.submit(text);
  });
  const close = el('button', { type: 'button', class: 'button', 'data-action': 'close-lookup' }, t('lookup.close'));
  close.addEventListener('click', actions.close);
  const result = el('div', { class: 'lookup__result', 'aria-live': 'polite', 'data-lookup-result': '' });
  replaceChildren(
    root,
    el('h1', { class: 'lookup__title' }, t('lookup.title')),
    el('p', { class: 'lookup__instruction' }, t('lookup.instruction')),
    form,
    result,
    el('footer', { class: 'lookup__footer' }, close),
  );

  return {
    update({ result: view, busy, undoCheckIn }) {
      if (busy) {
        result.dataset['status'] = 'checking';
        replaceChildren(result, el('p', { class: 'lookup__headline' }, t('lookup.checking')));
        return;
      }
      if (!view) {
        delete result.dataset['status'];
        replaceChildren(result);
        return;
      }
      result.dataset['status'] = view.dataStatus;
      replaceChildren(
        result,
        el('p', { class: 'lookup__headline' }, view.headline),
        el(
          'ul',
          { class: 'lookup__details' },
          view.holder ? el('li', { 'data-lookup-holder': '' }, ...withHolderName(view.holder.text, view.holder.name)) : null,
          ...view.details.map((d) => el('li', {}, d)),
        ),
        undoCheckIn ? undoCheckInButton(undoCheckIn) : null,
      );
      // Ready for the next code: select what was typed so a new paste or scan replaces it.
      input.select();
    },
  };
}

export function isLookupInput(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && target.id === LOOKUP_INPUT_ID;
}

/**
 * The PIN fields of the staff dialog's forms (docs/kiosk.md "Staff PIN"): the input, and the checks the page makes
 * before the kiosk does, so the problem is said in the kiosk's language. Shared by the kiosk PIN's form and a
 * crew member's.
 */
import { el } from '../dom.js';
import { t } from '../messages/format.js';

/** The class of every PIN input: the keyboard-wedge capture leaves them alone, the dialog focuses the first. */
export const PIN_INPUT_CLASS = 'staff__pin-input';

export function pinInput(id: string, hook: string): HTMLInputElement {
  return el('input', {
    id,
    class: PIN_INPUT_CLASS,
    type: 'password',
    inputmode: 'numeric',
    autocomplete: 'off',
    maxlength: '8',
    pattern: '[0-9]*',
    [hook]: '',
  });
}

/** What is wrong with a new PIN typed twice, in words; null when nothing is. */
export function pinProblem(pin: string, repeat: string): string | null {
  if (!/^[0-9]{4,8}$/.test(pin)) return t('staff.pin.invalid');
  if (pin !== repeat) return t('staff.pin.mismatch');
  return null;
}

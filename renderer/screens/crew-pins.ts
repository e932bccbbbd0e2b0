/**
 * Crew PINs on the staff screen (docs/kiosk.md "Staff PIN"): the list of crew members with a PIN of their own
 * (add, change a PIN, remove after a second press) and the form for one member's PIN. Built from what the state
 * says (never a PIN); the staff dialog (staff.ts) makes the calls.
 */
import { el } from '../dom.js';
import type { StaffPerson, StaffRole } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { pinInput } from './pin-fields.js';

/** A crew member, as the state lists them (never their PIN). */
export type CrewMember = Omit<StaffPerson, 'via'>;

const STAFF_ROLES: readonly StaffRole[] = ['steward', 'supervisor', 'technician'];
/** As the kiosk checks it (main/kiosk/staff-access.ts): said here first, in the kiosk's language. */
const STAFF_ID_PATTERN = /^[0-9A-Za-z_.-]{1,80}$/;

/** What is wrong with a member's staff id or name, in words; null when nothing is. */
export function crewMemberProblem(member: CrewMember): string | null {
  const valid = STAFF_ID_PATTERN.test(member.staff_id) && member.name.trim() !== '' && member.name.length <= 80;
  return valid ? null : t('staff.crew.invalid');
}

export interface CrewListActions {
  /** Add a member (null) or change a member's PIN. */
  edit(member: CrewMember | null): void;
  /** Remove was pressed once: ask again in place. */
  askRemove(member: CrewMember): void;
  /** Remove was pressed the second time. */
  remove(member: CrewMember): void;
}

/** The crew with a PIN of their own; `confirming`: the staff id whose Remove was pressed once. */
export function crewList(people: readonly CrewMember[], confirming: string | null, actions: CrewListActions): HTMLElement {
  const add = el('button', { type: 'button', class: 'button', 'data-action': 'crew-add' }, t('staff.crew.add'));
  add.addEventListener('click', () => actions.edit(null));
  const row = (member: CrewMember): HTMLElement => {
    const change = el('button', { type: 'button', class: 'button', 'data-action': 'crew-change' }, t('staff.crew.change'));
    change.addEventListener('click', () => actions.edit(member));
    const asked = confirming === member.staff_id;
    const remove = el(
      'button',
      { type: 'button', class: asked ? 'button button--danger' : 'button', 'data-action': asked ? 'crew-remove-confirm' : 'crew-remove' },
      asked ? t('staff.crew.remove_confirm', { name: member.name }) : t('staff.crew.remove'),
    );
    remove.addEventListener('click', () => (asked ? actions.remove(member) : actions.askRemove(member)));
    const who = t('staff.crew.person', { name: member.name, role: t(`staff.role.${member.role}`), id: member.staff_id });
    return el('li', { class: 'staff__crew-member', 'data-crew-member': member.staff_id }, el('span', {}, who), change, remove);
  };
  return el(
    'div',
    { class: 'staff__crew', 'data-crew': '' },
    el('h3', { class: 'staff-area__title' }, t('staff.crew.title')),
    people.length === 0
      ? el('p', { class: 'staff__hint' }, t('staff.crew.none'))
      : el('ul', { class: 'staff__crew-list' }, ...people.map(row)),
    add,
  );
}

/**
 * The form for a member's own PIN: name, staff id (fixed once set) and role, the PIN twice. `member` null: a new
 * one. `submit` gets the member as typed (trimmed) and the two PINs.
 */
export function crewForm(
  member: CrewMember | null,
  busy: boolean,
  submit: (member: CrewMember, pin: string, repeat: string) => void,
): HTMLElement {
  const text = (id: string, hook: string): HTMLInputElement =>
    el('input', { id, class: 'staff__text', type: 'text', maxlength: '80', autocomplete: 'off', [hook]: '' });
  const name = text('staff-crew-name', 'data-crew-name');
  const staffId = text('staff-crew-id', 'data-crew-id');
  const role = el('select', { id: 'staff-crew-role', class: 'staff__select', 'data-crew-role': '' });
  for (const option of STAFF_ROLES) role.append(el('option', { value: option }, t(`staff.role.${option}`)));
  if (member) {
    name.value = member.name;
    staffId.value = member.staff_id;
    staffId.readOnly = true;
    role.value = member.role;
  }
  const pin = pinInput('staff-crew-pin', 'data-crew-pin');
  const repeat = pinInput('staff-crew-repeat', 'data-crew-repeat-pin');
  for (const field of [name, staffId, role, pin, repeat]) field.disabled = busy;
  const form = el(
    'form',
    { class: 'staff__form' },
    el('label', { for: 'staff-crew-name' }, t('staff.crew.name')),
    name,
    el('label', { for: 'staff-crew-id' }, t('staff.crew.id')),
    staffId,
    el('label', { for: 'staff-crew-role' }, t('staff.crew.role')),
    role,
    el('label', { for: 'staff-crew-pin' }, t('staff.pin.new')),
    pin,
    el('label', { for: 'staff-crew-repeat' }, t('staff.pin.repeat')),
    repeat,
    el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'staff-save-crew-pin' }, t('staff.pin.save')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit({ staff_id: staffId.value.trim(), name: name.value.trim(), role: role.value as StaffRole }, pin.value, repeat.value);
  });
  return form;
}

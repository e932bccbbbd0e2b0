/**
 * A party ticket's manual check-in on the dashboard (docs/issuer.md "Admin dashboard"; docs/protocol.md "Party
 * tickets (project extension)"): the dialog asks how many of the party come in now, 1 to what remains, as the
 * kiosk's Find a ticket does. Large buttons for the first numbers and a number field with the bounds for any; none is
 * chosen at first, and nothing is sent until one is. The answer is said in words: "3 of 5 in, 2 to come", or why not.
 */
import type { ManualCheckInResult } from '../issuer/dashboard-api.js';
import { h } from './dom.js';
import { formatCount } from './format.js';
import { t, tn } from './messages/format.js';

/** The most number buttons; a larger party is picked in the number field as well. */
export const PEOPLE_BUTTONS = 10;

export interface PeoplePicker {
  node: HTMLElement;
  /** The number picked, 1 to remaining; null while none (or a number out of bounds) is given. */
  chosen: () => number | null;
}

export function peoplePicker(remaining: number): PeoplePicker {
  const field = h('input', {
    id: 'manual-people',
    type: 'number',
    min: 1,
    max: remaining,
    step: 1,
    inputmode: 'numeric',
    autocomplete: 'off',
    'data-field': 'people',
  });
  const chosen = (): number | null => {
    const value = Number(field.value);
    return field.value !== '' && Number.isInteger(value) && value >= 1 && value <= remaining ? value : null;
  };
  const buttons = Array.from({ length: Math.min(remaining, PEOPLE_BUTTONS) }, (_, i) => i + 1).map((people) =>
    h('button', { type: 'button', class: 'secondary people-number', 'data-people': people, 'aria-pressed': 'false' }, String(people)),
  );
  // The chosen number says so with a mark and aria-pressed as well as its colour.
  const mark = (): void => {
    for (const [i, button] of buttons.entries()) {
      const on = chosen() === i + 1;
      button.setAttribute('aria-pressed', String(on));
      button.textContent = on ? `✓ ${i + 1}` : String(i + 1);
    }
  };
  for (const [i, button] of buttons.entries())
    button.addEventListener('click', () => {
      field.value = String(i + 1);
      mark();
    });
  field.addEventListener('input', mark);
  const node = h(
    'fieldset',
    { class: 'people-picker', 'data-remaining': remaining },
    h('legend', {}, t('ticket.manual.people')),
    h('div', { class: 'people-numbers' }, ...buttons),
    h('label', { for: field.id }, tn('ticket.manual.people_range', remaining, { count: formatCount(remaining) })),
    field,
  );
  return { node, chosen };
}

/** The answer about a party in words, or null when it is not about a party (the one-person words apply). */
export function partyAnswerText(answer: ManualCheckInResult): string | null {
  const party = answer.party;
  if (party === null || party.size < 2) return null;
  if (answer.status === 'party_exceeded')
    return tn('ticket.manual.party_exceeded', party.remaining, { count: formatCount(party.remaining) });
  if (answer.status !== 'valid') return null;
  if (party.remaining === 0) return tn('ticket.manual.party_all_in', party.size, { count: formatCount(party.size) });
  return tn('ticket.manual.party_progress', party.remaining, {
    count: formatCount(party.remaining),
    admitted: formatCount(party.admitted_total),
    size: formatCount(party.size),
  });
}

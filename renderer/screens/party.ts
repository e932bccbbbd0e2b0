/**
 * The party screen (docs/kiosk.md "Party tickets"): a ticket that admits several people asks "How many come in
 * now?", with one big button per number from 1 to what remains, readable and hit from two meters. Its own state:
 * a teal colour, the three-people icon and the word PARTY, never colour alone. Nothing is checked in until a number
 * is picked; Cancel lets nobody in. At an exit the same screen asks "How many leave now?", 1 to those inside, under
 * its own title (PARTY EXIT); Cancel lets nobody out.
 */
import { el, replaceChildren } from '../dom.js';
import { verdictIcon } from '../icons.js';
import { t, tn } from '../messages/format.js';
import type { PartyPromptView } from '../kiosk-bridge-types.js';
import type { ScreenHandle } from './screen.js';

/** The most number buttons shown; a larger remainder adds one button for all of it. */
export const MAX_PARTY_BUTTONS = 10;

export interface PartyActions {
  choose(people: number): void;
  cancel(): void;
}

export interface PartyProps {
  prompt: PartyPromptView;
  /** A ticket scanned meanwhile was refused: say "pick first". */
  pickFirst: boolean;
}

/** The numbers offered: 1 to remaining, at most MAX_PARTY_BUTTONS of them, and then all that remain. */
export function partyButtons(remaining: number): number[] {
  const shown = Array.from({ length: Math.min(remaining, MAX_PARTY_BUTTONS) }, (_, i) => i + 1);
  return remaining > MAX_PARTY_BUTTONS ? [...shown, remaining] : shown;
}

export function mountParty(root: HTMLElement, actions: PartyActions): ScreenHandle<PartyProps> {
  let shown: string | null = null;
  return {
    update({ prompt, pickFirst }) {
      const exit = prompt.direction === 'exit';
      const key = `${prompt.tid}|${prompt.asked_at}|${pickFirst}|${t('party.title')}`;
      if (key === shown) return;
      shown = key;
      const numberButton = (people: number): HTMLElement => {
        const button = el(
          'button',
          { type: 'button', class: 'button party__number', 'data-action': 'party-choose', 'data-people': String(people) },
          String(people),
        );
        button.addEventListener('click', () => actions.choose(people));
        return button;
      };
      const cancel = el(
        'button',
        { type: 'button', class: 'button button--secondary party__cancel', 'data-action': 'party-cancel' },
        t(exit ? 'party.exit_cancel' : 'party.cancel'),
      );
      cancel.addEventListener('click', () => actions.cancel());
      replaceChildren(
        root,
        el(
          'section',
          {
            class: 'party',
            role: 'alertdialog',
            'aria-labelledby': 'party-title',
            'data-party': String(prompt.size),
            'data-remaining': String(prompt.remaining),
            'data-direction': prompt.direction,
            'data-inside': String(prompt.inside),
            'data-tid': prompt.tid,
          },
          verdictIcon('party', '👥', 'party__icon'),
          el('h1', { class: 'party__title', id: 'party-title' }, t(exit ? 'party.exit_title' : 'party.title')),
          prompt.holder_name === null ? null : el('p', { class: 'party__holder', 'data-party-holder': '' }, prompt.holder_name),
          el('p', { class: 'party__size', 'data-party-size': '' }, tn('party.size', prompt.size)),
          el(
            'p',
            { class: 'party__known', 'data-party-known': '' },
            exit ? tn('party.inside', prompt.inside) : tn('party.known', prompt.remaining, { admitted: prompt.admitted_total }),
            prompt.source === 'known' ? el('span', { class: 'party__as-known' }, ` (${t('party.as_known')})`) : null,
          ),
          el('p', { class: 'party__question' }, t(exit ? 'party.exit_question' : 'party.question')),
          pickFirst
            ? el('p', { class: 'party__held', role: 'alert', 'data-party-held': '' }, t(exit ? 'party.exit_pending' : 'party.pending'))
            : null,
          el('div', { class: 'party__numbers' }, ...partyButtons(exit ? prompt.inside : prompt.remaining).map(numberButton)),
          el('div', { class: 'party__more' }, cancel),
        ),
      );
    },
  };
}

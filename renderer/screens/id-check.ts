/**
 * The ID screen (docs/kiosk.md "ID checks"): "Check ID: name Ada L., 18+", readable from two meters, with two big
 * buttons, Confirm and Deny. Its own state: a violet colour, the ID-card icon and the words CHECK ID, never colour
 * alone. Nothing is checked in until Confirm; a supervisor may override.
 */
import { el, replaceChildren } from '../dom.js';
import { verdictIcon } from '../icons.js';
import { t } from '../messages/format.js';
import type { IdCheckPromptView } from '../kiosk-bridge-types.js';
import type { ScreenHandle } from './screen.js';

export interface IdCheckActions {
  confirm(): void;
  deny(): void;
  /** A supervisor's override, offered to everyone (the core asks for the role). */
  override(): void;
}

export interface IdCheckProps {
  prompt: IdCheckPromptView;
  /** A ticket scanned meanwhile was refused: say "finish the ID check first". */
  finishFirst: boolean;
}

/** The prompt's main line, in the door's language. */
export function idCheckLine(prompt: IdCheckPromptView): string {
  const name = prompt.holder === '' ? '—' : prompt.holder;
  if (prompt.kind === 'name') return t('idcheck.line.name', { name });
  return prompt.holder === ''
    ? t('idcheck.line.age_no_name', { age: prompt.min_age ?? 0 })
    : t('idcheck.line.age', { name, age: prompt.min_age ?? 0 });
}

/**
 * The main line as nodes, the short name isolated in its own direction (docs/kiosk.md "Holder names"): a
 * right-to-left name does not pull ", 18+" into its run (digits after Arabic letters would join it).
 */
function idCheckLineNodes(prompt: IdCheckPromptView): (Node | string)[] {
  if (prompt.holder === '') return [idCheckLine(prompt)];
  const [before = '', ...rest] = idCheckLine({ ...prompt, holder: '\u0000' }).split('\u0000');
  const name = el('bdi', { dir: 'auto', 'data-holder-name': '' }, prompt.holder);
  return [before, name, rest.join(prompt.holder)].filter((piece) => piece !== '');
}

/** What the issuer's record says about the age (the band, never a date). */
export function idCheckBandLine(prompt: IdCheckPromptView): string {
  if (prompt.kind === 'name') return t('idcheck.name_only');
  return t(`idcheck.band.${prompt.band}`, { age: prompt.min_age ?? 0 });
}

export function mountIdCheck(root: HTMLElement, actions: IdCheckActions): ScreenHandle<IdCheckProps> {
  let shown: string | null = null;
  return {
    update({ prompt, finishFirst }) {
      const key = `${prompt.tid}|${prompt.asked_at}|${finishFirst}|${t('idcheck.title')}`;
      if (key === shown) return;
      shown = key;
      const button = (action: string, label: string, onClick: () => void, extra = ''): HTMLElement => {
        const element = el(
          'button',
          { type: 'button', class: `button idcheck__button idcheck__${action}${extra}`, 'data-action': `id-check-${action}` },
          label,
        );
        element.addEventListener('click', onClick);
        return element;
      };
      replaceChildren(
        root,
        el(
          'section',
          {
            class: `idcheck idcheck--${prompt.kind} idcheck--band-${prompt.band}`,
            role: 'alertdialog',
            'aria-labelledby': 'idcheck-title',
            'data-id-check': prompt.kind,
            'data-band': prompt.band,
            'data-tid': prompt.tid,
          },
          verdictIcon('id', '🪪', 'idcheck__icon'),
          el('h1', { class: 'idcheck__title', id: 'idcheck-title' }, t('idcheck.title')),
          el('p', { class: 'idcheck__line', 'data-id-check-line': '' }, ...idCheckLineNodes(prompt)),
          el('p', { class: 'idcheck__band', 'data-id-check-band': prompt.band }, idCheckBandLine(prompt)),
          el('p', { class: 'idcheck__hint' }, t('idcheck.nothing_checked_in')),
          finishFirst ? el('p', { class: 'idcheck__held', role: 'alert', 'data-id-check-held': '' }, t('idcheck.finish_first')) : null,
          el(
            'div',
            { class: 'idcheck__buttons' },
            button('confirm', `✓ ${t('idcheck.confirm')}`, actions.confirm),
            button('deny', `✗ ${t('idcheck.deny')}`, actions.deny),
          ),
          el('div', { class: 'idcheck__more' }, button('override', t('idcheck.override'), actions.override, ' button--secondary')),
        ),
      );
    },
  };
}

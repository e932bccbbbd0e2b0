/** Verdict: ADMIT or REFUSE, readable from two meters; word, icon and colour all say it. */
import { el, replaceChildren } from '../dom.js';
import { verdictIcon } from '../icons.js';
import { t } from '../messages/format.js';
import type { VerdictView } from '../view/verdict-view-model.js';
import { undoCheckInButton } from './door-operations.js';
import { holderNameElement } from './holder-name.js';
import type { ScreenHandle } from './screen.js';

export interface VerdictActions {
  dismiss(): void;
  /** Done on an attention verdict (docs/kiosk.md "Attention notes"): the note was read, the door takes scans again. */
  attentionDone?(): void;
  /** Staff's "Undo check-in" for this verdict (the last ADMIT, docs/kiosk.md "Annul at the door"), or null when not offered. */
  undoCheckIn?(view: VerdictView): (() => void) | null;
  /** A supervisor's override of the attention prompt holding the door (docs/kiosk.md "Attention notes"), or null. */
  overrideAttention?(view: VerdictView): (() => void) | null;
  /** Opens the verdict's details for a steward and up (docs/kiosk.md "Verdict details"), or null when not offered. */
  details?(view: VerdictView): (() => void) | null;
  /** docs/kiosk.md "Handouts": one tap hands an item of this verdict over. */
  giveHandout?(decidedAt: string, item: string): void;
}

export function mountVerdict(root: HTMLElement, actions: VerdictActions): ScreenHandle<VerdictView> {
  let shown: VerdictView | null = null;
  return {
    update(view) {
      // One verdict arrives as the scan's answer, in the pushed state and in the refreshed state: build
      // it once. Rebuilding it for the later two would redo style, layout and paint while it is being
      // painted. A new verdict is a new view object.
      if (view === shown) return;
      shown = view;
      const next = view.attention
        ? el(
            'button',
            { type: 'button', class: 'button verdict__next verdict__done', 'data-action': 'attention-done' },
            t('verdict.attention_done'),
          )
        : el('button', { type: 'button', class: 'button verdict__next', 'data-action': 'dismiss-verdict' }, t('verdict.back'));
      next.addEventListener('click', view.attention ? (actions.attentionDone ?? actions.dismiss) : actions.dismiss);
      const undo = actions.undoCheckIn?.(view) ?? null;
      const override = actions.overrideAttention?.(view) ?? null;
      const details = actions.details?.(view) ?? null;
      const buttons = [
        undo ? undoCheckInButton(undo) : null,
        override ? actionButton('attention-override', t('verdict.attention_override'), override) : null,
        details ? actionButton('verdict-details', t('details.open'), details) : null,
      ].filter((button): button is HTMLElement => button !== null);
      replaceChildren(
        root,
        el(
          'section',
          {
            class: `verdict ${view.cssClass}`,
            role: 'status',
            'data-verdict': view.dataVerdict,
            'data-reason': view.dataReason,
            ...(view.attention ? { 'data-attention': view.attention.required ? 'required' : 'notes' } : {}),
          },
          ...verdictBody(view),
          view.readAgainNote ? el('p', { class: 'verdict__read-again', 'data-read-again': '' }, view.readAgainNote) : null,
          view.heldNote ? el('p', { class: 'verdict__held', role: 'alert', 'data-attention-held': '' }, view.heldNote) : null,
          handoutsElement(view, actions),
          detailsElement(view),
          buttons.length > 0 ? el('div', { class: 'verdict__buttons' }, ...buttons, next) : next,
        ),
      );
    },
  };
}

/**
 * docs/kiosk.md "Handouts": one big button per item (`[data-handout=ITEM]`), with what is left and when and where the
 * last one was given; an item all given is shown, its button disabled; the last tap's refusal or offline note above.
 */
function handoutsElement(view: VerdictView, actions: VerdictActions): Element | null {
  const handouts = view.handouts;
  if (!handouts) return null;
  return el(
    'section',
    { class: 'verdict__handouts', 'data-handouts': '', 'aria-label': t('handout.title') },
    handouts.note
      ? el(
          'p',
          {
            class: `verdict__handout-note verdict__handout-note--${handouts.note.kind}`,
            role: 'alert',
            'data-handout-note': handouts.note.kind,
          },
          handouts.note.kind === 'offline' ? '⏳ ' : '✗ ',
          handouts.note.text,
        )
      : null,
    handouts.items.length === 0 ? el('p', { class: 'verdict__handout-none' }, t('handout.none')) : null,
    ...handouts.items.map((entry) => {
      const button = el(
        'button',
        {
          type: 'button',
          class: `button verdict__handout${entry.left === 0 ? ' verdict__handout--done' : ''}`,
          'data-handout': entry.item,
          'data-left': String(entry.left),
          ...(entry.left === 0 ? { disabled: '' } : {}),
        },
        el('span', { class: 'verdict__handout-icon', 'aria-hidden': 'true' }, entry.left === 0 ? '✓' : '+'),
        el('span', { class: 'verdict__handout-label', dir: 'auto' }, entry.left === 0 ? entry.item : entry.label),
        el('span', { class: 'verdict__handout-left' }, entry.leftText),
        entry.lastGiven ? el('span', { class: 'verdict__handout-last', 'data-handout-last': '' }, entry.lastGiven) : null,
      );
      button.addEventListener('click', () => actions.giveHandout?.(handouts.decidedAt, entry.item));
      return button;
    }),
  );
}

function actionButton(action: string, label: string, onClick: () => void): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'button verdict__action', 'data-action': action }, label);
  button.addEventListener('click', onClick);
  return button;
}

/** docs/kiosk.md "Verdict details": the facts as labelled lines (`[data-verdict-details] [data-detail=…]`), or why there are none. */
function detailsElement(view: VerdictView): Element | null {
  if (view.detailsProblem) return el('p', { class: 'verdict__details-problem', 'data-verdict-details-problem': '' }, view.detailsProblem);
  if (!view.details) return null;
  return el(
    'dl',
    { class: 'verdict__details', 'data-verdict-details': '', 'aria-label': t('details.title') },
    ...view.details.map((line) =>
      el('div', { class: 'verdict__detail', 'data-detail': line.key }, el('dt', {}, line.label), el('dd', { dir: 'auto' }, line.value)),
    ),
  );
}

/**
 * What a verdict says, the same on the full screen and in a lane's half (renderer/screens/lanes.ts):
 * icon, word, reason, the attendee's other language, the holder and the offline note. `part` adds the
 * lane's own classes (e.g. `lane`: lane__icon, lane__word…), which size them to the half.
 */
export function verdictBody(view: VerdictView, part?: string): Element[] {
  const classes = (name: string): string => (part ? `verdict__${name} ${part}__${name}` : `verdict__${name}`);
  const word = el('div', { class: classes('word') }, view.word);
  // languages.css shrinks a long word (another language's) to fit the screen.
  word.style.setProperty('--word-length', String(view.word.length));
  const body: (Element | null)[] = [
    verdictIcon(view.attention ? 'attention' : view.dataVerdict, view.icon, classes('icon')),
    word,
    el('p', { class: classes('reason'), 'data-reason-text': '' }, view.reasonText),
    // The attendee's other language: the same word and reason, smaller (docs/kiosk.md "Languages").
    view.secondLanguage
      ? el(
          'p',
          { class: 'verdict__second', lang: view.secondLanguage.lang, 'data-second-language': view.secondLanguage.lang },
          el('span', { class: 'verdict__second-word' }, view.secondLanguage.word),
          ' · ',
          view.secondLanguage.reasonText,
        )
      : null,
    holderLine(view, classes('holder')),
    // docs/kiosk.md "Attention notes": the notes large, each on its own line, in the issuer's words.
    view.attention && view.attention.notes.length > 0
      ? el(
          'ul',
          { class: classes('notes'), 'data-attention-notes': '' },
          ...view.attention.notes.map((note) => el('li', { class: 'verdict__note', dir: 'auto' }, note)),
        )
      : null,
    view.offlineNote ? el('p', { class: 'verdict__offline', 'data-offline': '' }, view.offlineNote) : null,
  ];
  return body.filter((node): node is Element => node !== null);
}

/** The holder's name (two lines at most, docs/kiosk.md "Holder names") and the ticket type under it. */
function holderLine(view: VerdictView, className: string): Element | null {
  if (view.holderName === null && view.ticketType === null) return null;
  return el(
    'div',
    { class: className, 'data-holder': '' },
    view.holderName === null ? null : holderNameElement(view.holderName),
    view.ticketType === null ? null : el('span', { class: 'verdict__ticket-type', 'data-ticket-type': '' }, view.ticketType),
  );
}

/**
 * The split door screen (docs/kiosk-screens.md "Lanes"): one half per lane,
 * each with its name and direction, showing ADMIT / REFUSE / EXIT for its own
 * scans independently. Readable from two meters: the word is sized to the half.
 */
import { el, replaceChildren } from '../dom.js';
import { verdictIcon } from '../icons.js';
import { t } from '../messages/format.js';
import type { LaneHalfView } from '../view/lanes-view-model.js';
import type { ScreenHandle } from './screen.js';

export function mountLanes(root: HTMLElement): ScreenHandle<LaneHalfView[]> {
  const container = el('div', { class: 'lanes' });
  root.append(container);
  /** What each half shows now: a half is rebuilt only when its own view changed. */
  const built = new Map<string, { view: LaneHalfView; element: HTMLElement }>();
  return {
    update(halves) {
      container.style.setProperty('--lanes', String(halves.length));
      const elements = halves.map((half) => {
        const previous = built.get(half.id);
        if (previous && sameHalf(previous.view, half)) return previous.element;
        const element = laneHalf(half);
        built.set(half.id, { view: half, element });
        return element;
      });
      if (elements.some((element, index) => container.children[index] !== element) || container.children.length !== elements.length) {
        replaceChildren(container, ...elements);
      }
    },
  };
}

function sameHalf(a: LaneHalfView, b: LaneHalfView): boolean {
  return a.verdict === b.verdict && a.label === b.label && a.direction === b.direction && a.scannerMissing === b.scannerMissing;
}

function laneHalf(half: LaneHalfView): HTMLElement {
  const head = el(
    'header',
    { class: 'lane__head' },
    el('span', { class: 'lane__label', 'data-lane-label': '' }, half.label),
    el('span', { class: `lane__direction lane__direction--${half.direction}`, 'data-lane-direction': half.direction }, half.directionWord),
  );
  const missing = half.scannerMissing
    ? el('p', { class: 'lane__missing', role: 'alert', 'data-lane-missing': '' }, t('lanes.scanner_missing'))
    : null;
  const view = half.verdict;
  if (!view) {
    return el(
      'section',
      { class: `lane lane--idle lane--${half.direction}`, 'data-lane': half.id, 'data-lane-state': 'idle' },
      head,
      el('p', { class: 'lane__prompt' }, t('lanes.scan')),
      missing,
    );
  }
  const who = [view.holderName, view.ticketType].filter((part): part is string => part !== null);
  const word = el('div', { class: 'verdict__word lane__word' }, view.word);
  word.style.setProperty('--word-length', String(view.word.length));
  return el(
    'section',
    {
      class: `lane ${view.cssClass}`,
      role: 'status',
      'data-lane': half.id,
      'data-lane-state': view.dataVerdict,
      'data-verdict': view.dataVerdict,
      'data-reason': view.dataReason,
    },
    head,
    verdictIcon(view.dataVerdict, view.icon, 'verdict__icon lane__icon'),
    word,
    el('p', { class: 'verdict__reason lane__reason', 'data-reason-text': '' }, view.reasonText),
    view.secondLanguage
      ? el(
          'p',
          { class: 'verdict__second', lang: view.secondLanguage.lang, 'data-second-language': view.secondLanguage.lang },
          el('span', { class: 'verdict__second-word' }, view.secondLanguage.word),
          ' · ',
          view.secondLanguage.reasonText,
        )
      : null,
    who.length > 0 ? el('p', { class: 'verdict__holder lane__holder', 'data-holder': '' }, who.join(' · ')) : null,
    view.offlineNote ? el('p', { class: 'verdict__offline', 'data-offline': '' }, view.offlineNote) : null,
    missing,
  );
}

/**
 * The split door screen (docs/kiosk-screens.md "Lanes"): one half per lane,
 * each with its name and direction, showing ADMIT / REFUSE / EXIT for its own
 * scans independently. Readable from two meters: the word is sized to the half.
 */
import { el, replaceChildren } from '../dom.js';
import { t } from '../messages/format.js';
import type { LaneHalfView } from '../view/lanes-view-model.js';
import type { ScreenHandle } from './screen.js';
import { verdictBody } from './verdict.js';

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
    ...verdictBody(view, 'lane'),
    missing,
  );
}

/** Ready: which event and gate, online or offline, what waits to sync, the last verdicts. */
import { el, replaceChildren } from '../dom.js';
import type { KioskState } from '../kiosk-bridge-types.js';
import { t, translatorFor } from '../messages/format.js';
import { doorLanguages } from '../view/language.js';
import { readyView } from '../view/ready-view-model.js';
import { diagnosisView, hidScannerLine, translatingText } from '../view/scanner-view-model.js';
import type { ScannerDiagnosis } from '../kiosk-bridge-types.js';
import { confirmCalibrationPanel, scannerPanel } from './scanner-panel.js';
import type { ScreenHandle } from './screen.js';

export interface ReadyProps {
  state: KioskState;
  /** A message about the last action (e.g. a failed re-enroll), or null. */
  notice: string | null;
  /** A calibration code was just scanned: what it found, until closed. */
  diagnosis: ScannerDiagnosis | null;
}

export interface ReadyActions {
  openLookup(): void;
  closeDiagnosis(): void;
  resetCalibration(): void;
  /** Keep or discard a translation waiting for confirmation (docs/kiosk.md "Calibration"). */
  confirmCalibration(keep: boolean): void;
}

export function mountReady(root: HTMLElement, actions: ReadyActions): ScreenHandle<ReadyProps> {
  return {
    update({ state, notice, diagnosis }) {
      const view = readyView(state);
      const second = doorLanguages(state).secondary;
      const hid = hidScannerLine(state, 'ready');
      // docs/kiosk.md "Calibration": while any translation is active, Ready says so, standing.
      const translating = translatingText(state);
      const lookup = el('button', { type: 'button', class: 'button', 'data-action': 'open-lookup' }, t('ready.lookup_button'));
      lookup.addEventListener('click', actions.openLookup);
      const connectionIcon = view.connection.dataConnection === 'online' ? '●' : view.connection.dataConnection === 'offline' ? '⚠' : '…';
      replaceChildren(
        root,
        el(
          'header',
          { class: 'ready__header' },
          el(
            'div',
            {},
            el('h1', { class: 'ready__event', 'data-event-name': '' }, view.eventName),
            el('p', { class: 'ready__date' }, view.eventDate),
          ),
          el('p', { class: 'ready__gate', 'data-gate': state.gate_id ?? '' }, view.gate),
          el('p', { class: `ready__direction ready__direction--${view.direction}`, 'data-direction': view.direction }, view.directionText),
        ),
        el(
          'div',
          { class: 'ready__status' },
          el(
            'p',
            { class: 'pill', 'data-connection': view.connection.dataConnection },
            el('span', { 'aria-hidden': 'true' }, connectionIcon),
            ' ',
            view.connection.text,
          ),
          el('p', { class: 'pill', 'data-pending-count': String(view.pendingCount) }, view.pendingText),
          // docs/kiosk.md "Staff PIN": who is unlocked, and as what, while they are.
          state.staff.person
            ? el(
                'p',
                { class: 'pill', 'data-staff-person': state.staff.person.staff_id, 'data-staff-role': state.staff.person.role },
                t('staff.person', { name: state.staff.person.name, role: t(`staff.role.${state.staff.person.role}`) }),
              )
            : null,
          view.doubleAdmissionsText
            ? el(
                'p',
                { class: 'pill pill--warning', 'data-double-admissions': String(state.double_admissions.length) },
                '⚠ ',
                view.doubleAdmissionsText,
              )
            : null,
          view.revokedAdmissionsText
            ? el('p', { class: 'pill pill--warning', 'data-revoked-admissions': '' }, '⚠ ', view.revokedAdmissionsText)
            : null,
          view.partyRefusedText ? el('p', { class: 'pill pill--warning', 'data-party-refused': '' }, '⚠ ', view.partyRefusedText) : null,
        ),
        view.revocationList
          ? el(
              'p',
              {
                class: view.revocationList.stale ? 'banner banner--warning ready__revocations' : 'ready__revocations',
                'data-revocation-list': view.revocationList.stale ? 'stale' : 'current',
                ...(view.revocationList.stale ? { role: 'status' } : {}),
              },
              view.revocationList.stale ? '⚠ ' : '',
              view.revocationList.text,
            )
          : null,
        view.clockWarningText
          ? el('p', { class: 'banner banner--warning', role: 'status', 'data-clock': 'off' }, '⚠ ', view.clockWarningText)
          : null,
        view.offlineRule ? el('p', { class: 'ready__offline-rule' }, view.offlineRule) : null,
        view.venueFullText
          ? el('p', { class: 'banner banner--danger banner--venue-full', role: 'alert', 'data-venue-full': '' }, '⛔ ', view.venueFullText)
          : null,
        view.unauthorisedText
          ? el('p', { class: 'banner banner--danger', role: 'alert', 'data-unauthorised': '' }, '✗ ', view.unauthorisedText)
          : null,
        notice ? el('p', { class: 'banner', role: 'alert', 'data-notice': '' }, notice) : null,
        // The scanner check, while open, says the same in more words.
        translating && !diagnosis ? el('p', { class: 'banner banner--warning', 'data-calibration-active': '' }, '⚠ ', translating) : null,
        state.calibration_to_confirm ? confirmCalibrationPanel(actions.confirmCalibration) : null,
        hid ? el('p', { class: 'banner banner--danger', role: 'alert', 'data-hid-scanner': 'problem' }, '⚠ ', hid.text) : null,
        state.storage && state.storage.state !== 'recovered_earlier'
          ? el(
              'p',
              { class: 'banner banner--danger', role: 'alert', 'data-storage': state.storage.state },
              '⚠ ',
              t('storage.notice', { message: state.storage.message }),
            )
          : null,
        // The scanner check takes the place of the prompt and the list until IT closes it.
        diagnosis ? scannerPanel(diagnosisView(diagnosis), { reset: actions.resetCalibration, close: actions.closeDiagnosis }) : null,
        diagnosis
          ? null
          : el(
              'p',
              { class: 'ready__prompt' },
              el('span', { class: 'ready__prompt-icon', 'aria-hidden': 'true' }, '▣'),
              ' ',
              t('ready.prompt'),
              // The attendee's other language, smaller, under the prompt (docs/kiosk.md "Languages").
              second === null
                ? null
                : el(
                    'span',
                    { class: 'ready__prompt-second', lang: second, 'data-second-language': second },
                    translatorFor(second)('ready.prompt'),
                  ),
            ),
        diagnosis ? null : recentSection(view.recent),
        el('footer', { class: 'ready__footer' }, lookup),
      );
    },
  };
}

function recentSection(recent: ReturnType<typeof readyView>['recent']): HTMLElement {
  return el(
    'section',
    { class: 'ready__recent' },
    el('h2', {}, t('ready.recent.title')),
    recent.length === 0
      ? el('p', { class: 'ready__recent-none' }, t('ready.recent.none'))
      : el(
          'ol',
          { 'data-recent-verdicts': '' },
          ...recent.map((line) =>
            el(
              'li',
              { class: `recent recent--${line.dataVerdict}`, 'data-verdict': line.dataVerdict },
              el('span', { class: 'recent__icon', 'aria-hidden': 'true' }, line.icon),
              el('span', { class: 'recent__time' }, line.time),
              el('span', { class: 'recent__text' }, line.text),
            ),
          ),
        ),
  );
}

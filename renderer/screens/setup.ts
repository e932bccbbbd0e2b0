/** Setup: how to enroll, enrollment errors, and the re-enroll question when a setup code is scanned while enrolled. */
import { el } from '../dom.js';
import type { KioskState } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import type { OnsiteIssuerApi } from '../onsite-issuer-bridge-types.js';
import { setupClockLine } from '../view/clock-view-model.js';
import { reEnrollQuestion } from '../view/setup-view-model.js';
import { diagnosisView, hidScannerLine, translatingText } from '../view/scanner-view-model.js';
import { confirmCalibrationPanel, scannerPanel } from './scanner-panel.js';
import { mountIssuerPanel, type IssuerPanel } from './onsite-issuer-panel.js';
import type { ScreenHandle } from './screen.js';
import type { StaffGate } from './staff.js';

export interface SetupProps {
  state: KioskState | null;
  /** A plain-words problem with the last scan, or null. */
  message: string | null;
  busy: boolean;
}

export interface SetupActions {
  confirmReEnroll(): void;
  cancelReEnroll(): void;
  resetCalibration(): void;
  /** Keep or discard a translation waiting for confirmation (docs/kiosk.md "Calibration"). */
  confirmCalibration(keep: boolean): void;
}

/**
 * `onsiteIssuer`: this machine's issuer (Electron only); without it the screen is about enrolling alone.
 * `staff`: the staff PIN (screens/staff.ts): its settings (PIN, language) are shown here, and the
 * re-enroll question and the issuer panel ask for the PIN first.
 */
export function mountSetup(
  root: HTMLElement,
  actions: SetupActions,
  onsiteIssuer?: OnsiteIssuerApi,
  staff?: StaffGate,
): ScreenHandle<SetupProps> {
  root.replaceChildren();
  const panel: IssuerPanel | null = onsiteIssuer ? mountIssuerPanel(onsiteIssuer, staff ? () => staff.unlocked() : undefined) : null;
  if (panel) root.append(panel.element);
  const area = staff?.area.element ?? null;
  // The panel and the staff settings stay attached while the rest is rebuilt: a state push must not
  // take the focus from their fields (or a language picked but not saved yet).
  const kept = (child: ChildNode): boolean => child === panel?.element || child === area;
  const show = (...children: (Node | string | null)[]): void => {
    if (area && area.parentNode !== root) root.append(area);
    for (const child of [...root.childNodes]) if (!kept(child)) child.remove();
    const before = [...root.childNodes].find(kept) ?? null;
    for (const child of children)
      if (child !== null) root.insertBefore(typeof child === 'string' ? document.createTextNode(child) : child, before);
  };
  return {
    update(props) {
      const pending = props.state?.re_enroll_pending ?? null;
      root.dataset['setupMode'] = pending ? 'confirm' : 'enroll';
      if (pending && props.state) {
        const { state } = props;
        const current = state.event ? { event_name: state.event.name, gate_id: state.gate_id } : null;
        const question = reEnrollQuestion(current, pending, state.pending_scans);
        const yes = el(
          'button',
          { type: 'button', class: 'button button--primary', 'data-action': 'confirm-re-enroll' },
          t('setup.confirm.yes'),
        );
        const no = el('button', { type: 'button', class: 'button', 'data-action': 'cancel-re-enroll' }, t('setup.confirm.no'));
        yes.addEventListener('click', actions.confirmReEnroll);
        no.addEventListener('click', actions.cancelReEnroll);
        panel?.setVisible(false);
        if (area) area.hidden = true;
        show(
          el('h1', { class: 'setup__title' }, question.title),
          el('p', { class: 'setup__event' }, question.current),
          el('p', { class: 'setup__event setup__event--new' }, question.proposed),
          question.pending
            ? el('p', { class: 'setup__warning', 'data-pending-count': String(state.pending_scans) }, '⚠ ', question.pending)
            : null,
          props.message ? el('p', { class: 'setup__message', role: 'alert', 'data-setup-message': '' }, props.message) : null,
          el('div', { class: 'setup__buttons' }, no, yes),
        );
        return;
      }
      panel?.setVisible(true);
      if (area) area.hidden = false;
      // IT's screen: the USB scanner's status and what calibration found stay here for them.
      const hid = props.state ? hidScannerLine(props.state, 'setup') : null;
      const calibration = props.state?.calibration ?? null;
      const translating = props.state ? translatingText(props.state) : null;
      // Once measured (an enrollment's answers): enrolled, the staff settings' gate block shows it instead.
      const clock = props.state && props.state.clock?.offset_ms != null ? setupClockLine(props.state) : null;
      show(
        el('div', { class: 'setup__icon', 'aria-hidden': 'true' }, qrIcon()),
        el('h1', { class: 'setup__title' }, t('setup.instruction')),
        el('p', { class: 'setup__hint' }, t('setup.hint')),
        props.busy ? el('p', { class: 'setup__busy', 'data-busy': '' }, t('setup.working')) : null,
        props.message ? el('p', { class: 'setup__message', role: 'alert', 'data-setup-message': '' }, '✗ ', props.message) : null,
        hid
          ? el(
              'p',
              { class: hid.problem ? 'banner banner--danger' : 'setup__hint', 'data-hid-scanner': hid.problem ? 'problem' : 'ok' },
              hid.text,
            )
          : null,
        props.state?.storage
          ? el(
              'p',
              { class: 'banner banner--danger', role: 'alert', 'data-storage': props.state.storage.state },
              '⚠ ',
              t('storage.notice', { message: props.state.storage.message }),
            )
          : null,
        clock
          ? el('p', { class: clock.warn ? 'banner banner--warning' : 'setup__hint', 'data-clock': clock.warn ? 'off' : 'ok' }, clock.text)
          : null,
        translating ? el('p', { class: 'setup__hint', 'data-calibration-active': '' }, translating) : null,
        props.state?.calibration_to_confirm ? confirmCalibrationPanel(actions.confirmCalibration) : null,
        calibration ? scannerPanel(diagnosisView(calibration.diagnosis), { reset: actions.resetCalibration }) : null,
      );
    },
  };
}

/** A QR-code pictogram as inline SVG (no image file, nothing for the CSP to allow). */
function qrIcon(): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 7 7');
  svg.setAttribute('class', 'qr-icon');
  const cells = ['0,0,3,3', '4,0,3,3', '0,4,3,3', '4,4,1,1', '6,4,1,1', '5,5,1,1', '4,6,1,1', '6,6,1,1'];
  for (const cell of cells) {
    const [x, y, w, h] = cell.split(',');
    const rect = document.createElementNS(ns, 'rect');
    rect.setAttribute('x', x!);
    rect.setAttribute('y', y!);
    rect.setAttribute('width', w!);
    rect.setAttribute('height', h!);
    svg.append(rect);
  }
  return svg;
}

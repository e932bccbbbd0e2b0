/** The scanner check: the calibration diagnosis, readable by IT at the kiosk (docs/kiosk.md "Calibration"). */
import { el } from '../dom.js';
import { t } from '../messages/format.js';
import type { DiagnosisView } from '../view/scanner-view-model.js';

export interface ScannerPanelActions {
  /** Shown as "Reset scanner calibration" when given. */
  reset?: () => void;
  /** Shown as "Done" when given. */
  close?: () => void;
}

export function scannerPanel(view: DiagnosisView, actions: ScannerPanelActions): HTMLElement {
  const buttons: HTMLElement[] = [];
  if (actions.reset) buttons.push(button('reset-calibration', t('scanner.reset'), actions.reset));
  if (actions.close) buttons.push(button('close-diagnosis', t('scanner.close'), actions.close, true));
  return el(
    'section',
    { class: 'scanner-panel', 'data-scanner-diagnosis': view.dataTranslation, 'aria-label': view.title },
    el('h2', { class: 'scanner-panel__title' }, view.title),
    el('p', { class: 'scanner-panel__when' }, view.when),
    el('ul', { class: 'scanner-panel__lines' }, ...view.lines.map((line) => el('li', {}, line))),
    el(
      'p',
      { class: `scanner-panel__verdict scanner-panel__verdict--${view.dataTranslation}`, 'data-diagnosis-verdict': '' },
      view.verdict,
    ),
    buttons.length > 0 ? el('div', { class: 'scanner-panel__buttons' }, ...buttons) : null,
  );
}

/**
 * docs/kiosk.md "Calibration": a translation that matches no known layout is used only once staff keep it here.
 * `keep(true)` keeps it, `keep(false)` discards it.
 */
export function confirmCalibrationPanel(keep: (keep: boolean) => void): HTMLElement {
  return el(
    'section',
    { class: 'banner banner--warning scanner-confirm', role: 'alert', 'data-calibration-to-confirm': '' },
    el('p', {}, '⚠ ', t('scanner.confirm.question')),
    el(
      'div',
      { class: 'scanner-panel__buttons' },
      button('keep-calibration', t('scanner.confirm.keep'), () => keep(true)),
      button('discard-calibration', t('scanner.confirm.discard'), () => keep(false), true),
    ),
  );
}

function button(action: string, label: string, onClick: () => void, primary = false): HTMLButtonElement {
  const element = el('button', { type: 'button', class: primary ? 'button button--primary' : 'button', 'data-action': action }, label);
  element.addEventListener('click', onClick);
  return element;
}

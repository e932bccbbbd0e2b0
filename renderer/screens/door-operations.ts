/**
 * The staff's door controls (docs/kiosk.md "Door operations"):
 *
 * - AnnulDialog: "Undo check-in" from the Verdict screen (the last ADMIT) or
 *   the lookup screen (a checked-in ticket). The staff PIN first (StaffGate's
 *   dialog), then a reason (big preset buttons, or typed), then `annul`, and
 *   its answer in words. An overlay over the screen, like the PIN dialog.
 * - DoorSettings: the gate's direction (Entry / Exit, `setDirection`), the
 *   occupancy from the last heartbeat and this kiosk's offline exposure per
 *   ticket type. It rides in the staff settings (StaffArea), so it is on
 *   Setup and in the staff menu, which the PIN opens.
 *
 * The kiosk core enforces the PIN, the annul right and the window; this only
 * offers what the state says is allowed and asks for the PIN first.
 */
import { holderNameElement } from './holder-name.js';
import { el, replaceChildren } from '../dom.js';
import { attempt } from '../kiosk-bridge.js';
import type { AnnulResult, GateDirection, KioskApi, KioskState, StaffLocked } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { setupClockLine } from '../view/clock-view-model.js';
import { ANNUL_REASON_KEYS, annulOutcomeView, annulReason, doorSettingsView, type AnnulOutcomeView } from '../view/door-view-model.js';
import { verdictIdentity } from '../view/verdict-view-model.js';
import type { StaffGate } from './staff.js';
import { runStaffCall } from './staff-call.js';

/** The check-in to undo, as the screen that offers it knows it. */
export interface AnnulTarget {
  tid: string;
  holderName: string | null;
  ticketType: string | null;
}

type Step = 'closed' | 'reason' | 'busy' | 'result';

const REASON_INPUT_ID = 'annul-reason-input';

/** The "Undo check-in" button a screen shows; `data-action="annul-open"`. */
export function undoCheckInButton(onClick: () => void): HTMLElement {
  const button = el('button', { type: 'button', class: 'button button--annul', 'data-action': 'annul-open' }, '↶ ', t('annul.button'));
  button.addEventListener('click', onClick);
  return button;
}

export class AnnulDialog {
  private readonly overlay: HTMLElement;
  private step: Step = 'closed';
  private target: AnnulTarget | null = null;
  private outcome: AnnulOutcomeView | null = null;
  private newestVerdict: string | null = null;
  private seenState = false;
  /** Told when the dialog closes: what came of it (null: cancelled, or no answer shown). */
  private onClose: ((outcome: AnnulOutcomeView | null) => void) | null = null;

  constructor(
    doc: Document,
    private readonly kiosk: KioskApi,
    private readonly staff: StaffGate | null,
  ) {
    this.overlay = el('div', { class: 'annul-overlay', role: 'dialog', 'aria-modal': 'true', 'data-annul-dialog': '' });
    this.overlay.hidden = true;
    this.overlay.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      if (this.step !== 'busy') this.close();
    });
    doc.body.append(this.overlay);
  }

  isOpen(): boolean {
    return this.step !== 'closed';
  }

  /** Every state push: a new verdict (the door comes first) closes the dialog, unless an annulment is on its way. */
  update(state: KioskState): void {
    const newest = state.last_verdicts[0];
    const identity = newest ? verdictIdentity(newest) : null;
    const arrived = this.seenState && identity !== this.newestVerdict;
    this.seenState = true;
    this.newestVerdict = identity;
    if (arrived && (this.step === 'reason' || this.step === 'result')) this.close();
  }

  /** Asks for the staff PIN when locked, then for the reason. `onClose` hears the outcome. */
  start(target: AnnulTarget, onClose: (outcome: AnnulOutcomeView | null) => void): void {
    const open = (): void => {
      this.target = target;
      this.outcome = null;
      this.onClose = onClose;
      this.step = 'reason';
      this.render();
      this.overlay.querySelector<HTMLElement>('[data-action="annul-reason"]')?.focus();
    };
    if (!this.staff) {
      open();
      return;
    }
    void this.staff.unlocked().then((unlocked) => {
      if (unlocked) open();
      else onClose(null);
    });
  }

  private close(): void {
    const onClose = this.onClose;
    const outcome = this.step === 'result' ? this.outcome : null;
    this.step = 'closed';
    this.target = null;
    this.onClose = null;
    this.render();
    onClose?.(outcome);
  }

  private async send(reason: string): Promise<void> {
    const target = this.target;
    if (!target || this.step === 'busy') return;
    this.step = 'busy';
    this.render();
    const call = (): Promise<AnnulResult | StaffLocked | null> =>
      attempt(() => this.kiosk.annul(target.tid, reason)).then((result) => (result.ok ? result.value : null));
    let answer = await call();
    if (answer?.type === 'staff_locked' && this.staff) {
      // The unlock ran out meanwhile: the PIN dialog, then the same annulment once more.
      this.overlay.hidden = true;
      answer = (await this.staff.unlocked()) ? await call() : answer;
    }
    this.outcome = annulOutcomeView(answer);
    this.step = 'result';
    this.render();
    this.overlay.querySelector<HTMLElement>('[data-action="annul-done"]')?.focus();
  }

  private render(): void {
    const overlay = this.overlay;
    const target = this.target;
    if (this.step === 'closed' || !target) {
      overlay.hidden = true;
      delete overlay.dataset['annulStep'];
      replaceChildren(overlay);
      return;
    }
    overlay.hidden = false;
    overlay.dataset['annulStep'] = this.step;
    // The holder's name in its own isolated element (docs/kiosk.md "Holder names"): a right-to-left name keeps its
    // words' order and spaces and does not pull the type and the ticket id into its direction.
    const who: (Node | string)[] = [];
    if (target.holderName !== null) who.push(holderNameElement(target.holderName));
    if (target.ticketType !== null) who.push(who.length > 0 ? ` · ${target.ticketType}` : target.ticketType);
    const panel = el(
      'div',
      { class: 'annul-panel' },
      el('h1', { class: 'annul__title' }, t('annul.title')),
      el(
        'p',
        { class: 'annul__ticket', 'data-annul-tid': target.tid },
        ...who,
        who.length > 0 ? ' — ' : '',
        t('lookup.ticket_id', { tid: target.tid }),
      ),
    );
    switch (this.step) {
      case 'reason':
        panel.append(...this.reasonContent());
        break;
      case 'busy':
        panel.append(el('p', { class: 'annul__busy', role: 'status', 'data-annul-busy': '' }, t('annul.busy')));
        break;
      case 'result':
        panel.append(...this.resultContent());
        break;
    }
    replaceChildren(overlay, panel);
  }

  private reasonContent(): Node[] {
    const presets = ANNUL_REASON_KEYS.map((key) => {
      const text = t(key);
      const button = el(
        'button',
        {
          type: 'button',
          class: 'button annul__reason',
          'data-action': 'annul-reason',
          'data-reason-key': key.replace('annul.reason.', ''),
        },
        text,
      );
      button.addEventListener('click', () => void this.send(text));
      return button;
    });
    const input = el('input', {
      id: REASON_INPUT_ID,
      class: 'annul__input',
      type: 'text',
      autocomplete: 'off',
      maxlength: '200',
      'data-annul-reason-input': '',
    });
    const form = el(
      'form',
      { class: 'annul__form' },
      el('label', { for: REASON_INPUT_ID }, t('annul.other_reason')),
      el(
        'div',
        { class: 'annul__row' },
        input,
        el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'annul-submit' }, t('annul.confirm')),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const reason = annulReason(input.value);
      if (reason) void this.send(reason);
      else input.focus();
    });
    const cancel = el('button', { type: 'button', class: 'button', 'data-action': 'annul-cancel' }, t('staff.cancel'));
    cancel.addEventListener('click', () => this.close());
    return [el('p', { class: 'annul__question' }, t('annul.question')), el('div', { class: 'annul__reasons' }, ...presets), form, cancel];
  }

  private resultContent(): Node[] {
    const outcome = this.outcome ?? annulOutcomeView(null);
    const done = el('button', { type: 'button', class: 'button button--primary', 'data-action': 'annul-done' }, t('annul.done'));
    done.addEventListener('click', () => this.close());
    const mark = outcome.tone === 'done' ? '✓ ' : outcome.tone === 'nothing' ? 'ℹ ' : '✗ ';
    return [
      el(
        'p',
        { class: `annul__result annul__result--${outcome.tone}`, role: 'alert', 'data-annul-result': outcome.dataResult },
        mark,
        outcome.text,
      ),
      done,
    ];
  }
}

/** Is `target` the annul dialog's reason field (the keyboard-wedge capture leaves it alone)? */
export function isAnnulInput(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && target.id === REASON_INPUT_ID;
}

/** The gate's settings for staff: direction, occupancy, offline exposure. */
export class DoorSettings {
  readonly element: HTMLElement;
  private state: KioskState | null = null;
  /** StaffCallPanel: set while a staff call runs, and the problem it met. */
  problem: string | null = null;
  busy = false;

  constructor(
    private readonly kiosk: KioskApi,
    private readonly staff: StaffGate | null,
  ) {
    this.element = el('section', { class: 'door-settings', 'data-door-settings': '' });
    this.element.hidden = true;
  }

  update(state: KioskState): void {
    this.state = state;
    this.render();
  }

  private setDirection(direction: GateDirection): void {
    runStaffCall(
      this,
      this.staff,
      () => this.kiosk.setDirection(direction),
      () => this.setDirection(direction),
    );
  }

  render(): void {
    const state = this.state;
    if (!state || !state.enrolled) {
      this.element.hidden = true;
      replaceChildren(this.element);
      return;
    }
    this.element.hidden = false;
    const view = doorSettingsView(state);
    // docs/kiosk.md "The kiosk's clock": how far this kiosk's clock is from the issuer's.
    const clock = setupClockLine(state);
    const toggle = el(
      'button',
      { type: 'button', class: 'button', 'data-action': 'set-direction', 'data-direction-to': view.switchTo },
      view.switchText,
    );
    toggle.disabled = this.busy;
    toggle.addEventListener('click', () => this.setDirection(view.switchTo));
    replaceChildren(
      this.element,
      el('h2', { class: 'staff-area__title' }, t('setup.door.title')),
      el(
        'div',
        { class: 'staff__buttons' },
        el(
          'p',
          { class: `door-settings__direction door-settings__direction--${view.direction}`, 'data-gate-direction': view.direction },
          view.directionText,
        ),
        toggle,
      ),
      view.occupancyText !== null
        ? el('p', { class: 'door-settings__occupancy', 'data-occupancy': view.occupancyLevel ?? 'open' }, view.occupancyText)
        : el('p', { class: 'staff__hint', 'data-no-heartbeat': '' }, t('setup.door.no_heartbeat')),
      view.heardAtText ? el('p', { class: 'staff__hint' }, view.heardAtText) : null,
      clock
        ? el('p', { class: clock.warn ? 'banner banner--warning' : 'staff__hint', 'data-clock': clock.warn ? 'off' : 'ok' }, clock.text)
        : null,
      el('h3', { class: 'door-settings__subtitle' }, t('setup.exposure.title')),
      el(
        'ul',
        { class: 'door-settings__exposure', 'data-offline-exposure': '' },
        ...state.offline_exposure.map((row, index) =>
          el(
            'li',
            {
              class: view.exposureRows[index]!.overCap ? 'door-settings__row door-settings__row--cap' : 'door-settings__row',
              'data-ticket-type': row.ticket_type,
              'data-last-hour': String(row.last_hour),
              'data-cap': row.cap === null ? '' : String(row.cap),
              'data-unsynced': String(row.unsynced),
            },
            view.exposureRows[index]!.text,
          ),
        ),
      ),
      this.problem ? el('p', { class: 'staff__problem', role: 'alert', 'data-door-problem': '' }, '✗ ', this.problem) : null,
    );
  }
}

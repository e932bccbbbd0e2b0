/**
 * The staff side of the screens (docs/kiosk.md "Staff PIN"), apart from the
 * door's own screens:
 *
 * - StaffGate: the staff PIN dialog, an overlay over whatever screen is up
 *   (enter the PIN, set or change it, the countdown after too many wrong
 *   PINs), and the staff menu (the "Staff" button on Ready, or F3).
 * - StaffArea: the staff settings (the PIN, the language, Lock, Leave kiosk
 *   mode), on the Setup screen and in the staff menu.
 *
 * The kiosk core enforces the PIN: a staff-only call made while locked
 * answers `staff_locked` and does nothing. This only asks for the PIN first,
 * so staff are not refused after the fact. The PIN is typed into a password
 * field, sent once, and kept nowhere by the page.
 */
import { el, replaceChildren } from '../dom.js';
import { attempt } from '../kiosk-bridge.js';
import type { KioskApi, KioskState, LanguageCode, LogCheckResult, StaffLocked, StaffState } from '../kiosk-bridge-types.js';
import { t, tn } from '../messages/format.js';
import { staffLockedText } from '../view/staff-view-model.js';
import { crewForm, crewList, crewMemberProblem, type CrewMember } from './crew-pins.js';
import { PIN_INPUT_CLASS, pinInput, pinProblem } from './pin-fields.js';

export interface StaffGateActions {
  /** The status lookup screen (the menu's "Status lookup"). */
  openLookup(): void;
  /** "Find a ticket" (the menu's, docs/kiosk.md "Finding a ticket"). */
  openSearch(): void;
}

type Mode = 'closed' | 'unlock' | 'set' | 'menu' | 'person';

const LANGUAGE_CODES: readonly LanguageCode[] = ['en', 'de', 'fr', 'es'];
/** Each language by its own name, as its speakers look for it: names, not words to translate. */
const LANGUAGE_NAMES: Readonly<Record<LanguageCode, string>> = { en: 'English', de: 'Deutsch', fr: 'Français', es: 'Español' };

export class StaffGate {
  /** The settings block, one instance: Setup and the staff menu show it in turn (it keeps the pickers' choice). */
  readonly area: StaffArea;
  private readonly overlay: HTMLElement;
  private readonly corner: HTMLElement;
  private state: KioskState | null = null;
  private mode: Mode = 'closed';
  /** What to run once the PIN is accepted. */
  private pending: (() => void) | null = null;
  private problem: string | null = null;
  private busy = false;
  private countdown: number | undefined;
  private newestVerdict: string | null = null;
  /** The crew member whose PIN the 'person' form changes; null: a new one. */
  private crewTarget: CrewMember | null = null;

  constructor(
    private readonly doc: Document,
    private readonly kiosk: KioskApi,
    private readonly actions: StaffGateActions,
  ) {
    this.area = new StaffArea(this);
    this.overlay = el('div', { class: 'staff-overlay', role: 'dialog', 'aria-modal': 'true', 'data-staff-dialog': '' });
    this.overlay.hidden = true;
    this.overlay.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      if (!this.forced()) this.close();
    });
    this.corner = el('div', { class: 'staff-corner', 'data-staff-corner': '' });
    doc.body.append(this.overlay, this.corner);
    doc.addEventListener('keydown', (event) => {
      // Ready, or the split screen of a kiosk with several lanes (docs/kiosk-screens.md "Lanes").
      if (event.key === 'F3' && (this.screen() === 'ready' || this.screen() === 'lanes') && this.mode === 'closed') {
        event.preventDefault();
        this.openMenu();
      }
    });
    // The corner (the "Staff" button, the no-PIN notice) follows the screen shown.
    const screen = doc.getElementById('screen');
    if (screen) new MutationObserver(() => this.renderCorner()).observe(screen, { attributes: true, attributeFilter: ['data-screen'] });
  }

  /** Every state push: the PIN state, and a new verdict closes the dialog (the door comes first). */
  update(state: KioskState): void {
    const newest = state.last_verdicts[0];
    const identity = newest ? `${newest.decided_at}|${newest.ticket?.tid ?? ''}` : null;
    const verdictArrived = this.state !== null && identity !== this.newestVerdict;
    this.newestVerdict = identity;
    this.state = state;
    this.area.update(state);
    if (this.forced()) {
      if (this.mode !== 'set') this.show('set');
      return;
    }
    if (verdictArrived && this.mode !== 'closed') this.close();
    else if (this.mode === 'unlock' && this.isOpen()) this.finishUnlock();
    else this.render();
  }

  /** Runs `action` now if staff functions are open, else once the right PIN is entered. */
  whenUnlocked(action: () => void): void {
    if (this.isOpen()) {
      action();
      return;
    }
    this.pending = action;
    this.problem = null;
    this.show('unlock');
  }

  /** True at once when open, else after the PIN dialog: true once unlocked, false if cancelled. */
  unlocked(): Promise<boolean> {
    if (this.isOpen()) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.whenUnlocked(() => resolve(true));
      this.onCancel = () => resolve(false);
    });
  }

  private onCancel: (() => void) | null = null;

  /**
   * A staff-only call answered staff_locked: ask for a PIN, then run it again. Either the unlock ran out meanwhile,
   * or the person unlocked has a role that may not make the call (docs/kiosk.md "Staff PIN"): then the dialog says
   * which role it needs, in the kiosk's language, and waits for that person's PIN (or badge) instead of retrying.
   */
  relock(retry: () => void, locked?: StaffLocked): void {
    const needsRole = locked ? staffLockedText(locked) : null;
    if (needsRole === null) {
      this.whenUnlocked(retry);
      return;
    }
    // Asked from the menu (its staff area shows the answer): the menu comes back with it.
    const fromMenu = this.mode === 'menu';
    this.pending = fromMenu
      ? () => {
          this.show('menu');
          retry();
        }
      : retry;
    this.show('unlock');
    this.problem = needsRole;
    this.render();
  }

  openMenu(): void {
    this.whenUnlocked(() => this.show('menu'));
  }

  setPin(): void {
    // Changing a PIN needs the old one (an unlock); the first one does not.
    this.whenUnlocked(() => this.show('set'));
  }

  /**
   * docs/kiosk.md "Staff PIN": a crew member's own PIN, added or changed on the 'person' form (a technician's
   * call, like the kiosk PIN; the kiosk refuses anyone else and the form then asks for a technician).
   */
  editCrew(member: CrewMember | null): void {
    this.whenUnlocked(() => {
      this.crewTarget = member;
      this.show('person');
    });
  }

  /** Removes a crew member's PIN (removeStaffPin); the staff area says it is done. */
  removeCrew(member: CrewMember): void {
    this.whenUnlocked(() => {
      void attempt(() => this.kiosk.removeStaffPin(member.staff_id)).then((result) => {
        if (result.ok && result.value.type === 'staff_locked') this.relock(() => this.removeCrew(member), result.value);
        else if (result.ok) this.area.setNote(t('staff.crew.removed', { name: member.name }));
        else this.area.setProblem(t('setup.error.failed'));
      });
    });
  }

  async lock(): Promise<void> {
    const result = await attempt(() => this.kiosk.lockStaff());
    if (result.ok) this.update(result.value);
    this.close();
  }

  async saveLanguage(primary: LanguageCode, secondary: LanguageCode | null): Promise<void> {
    this.whenUnlocked(() => {
      void attempt(() => this.kiosk.setLanguage(primary, secondary)).then((result) => {
        if (result.ok && result.value.type === 'staff_locked') this.relock(() => void this.saveLanguage(primary, secondary), result.value);
        else this.area.setProblem(result.ok ? null : t('setup.error.failed'));
      });
    });
  }

  /** The kiosk's check of its own audit log (docs/kiosk.md "The kiosk's audit log"), shown in the staff area. */
  async verifyLog(): Promise<void> {
    this.whenUnlocked(() => {
      void attempt(() => this.kiosk.verifyLog()).then((result) => {
        if (result.ok && result.value.type === 'staff_locked') this.relock(() => void this.verifyLog(), result.value);
        else if (result.ok && result.value.type === 'log_check') this.area.setLogCheck(result.value);
        else this.area.setProblem(t('setup.error.failed'));
      });
    });
  }

  async leaveKioskMode(): Promise<void> {
    this.whenUnlocked(() => {
      void attempt(() => this.kiosk.leaveKioskMode()).then((result) => {
        if (result.ok && result.value.type === 'staff_locked') this.relock(() => void this.leaveKioskMode(), result.value);
        else if (result.ok && result.value.type === 'left_kiosk_mode') this.close();
        else this.area.setProblem(result.ok && result.value.type === 'not_in_kiosk_mode' ? result.value.message : t('setup.error.failed'));
      });
    });
  }

  // ---- the dialog --------------------------------------------------------

  private isOpen(): boolean {
    const staff = this.state?.staff;
    if (!staff || !staff.pin_set) return true;
    return staff.unlocked && (staff.unlocked_until === null || Date.parse(staff.unlocked_until) > Date.now());
  }

  /** The setup code required a PIN and none is set: the dialog stays until one is. */
  private forced(): boolean {
    return (this.state?.enrolled ?? false) && (this.state?.staff.pin_needed ?? false);
  }

  private screen(): string | undefined {
    return this.doc.getElementById('screen')?.dataset['screen'];
  }

  private show(mode: Exclude<Mode, 'closed'>): void {
    this.mode = mode;
    this.problem = null;
    this.busy = false;
    this.render();
    this.overlay.querySelector<HTMLElement>(`.${PIN_INPUT_CLASS}:not([disabled])`)?.focus();
  }

  private close(): void {
    this.mode = 'closed';
    this.pending = null;
    const cancel = this.onCancel;
    this.onCancel = null;
    cancel?.();
    this.render();
  }

  /** The PIN was accepted: close, and run what was waiting for it. */
  private finishUnlock(): void {
    // Once only: the state push and the call's answer both say so, in either order.
    if (this.mode !== 'unlock') return;
    const action = this.pending;
    this.pending = null;
    this.onCancel = null;
    this.mode = 'closed';
    this.render();
    action?.();
  }

  private async submitUnlock(pin: string): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.render();
    const result = await attempt(() => this.kiosk.unlockStaff(pin));
    this.busy = false;
    if (!result.ok) {
      this.problem = /4 to 8 digits/.test(result.error.message) ? t('staff.pin.invalid') : t('setup.error.failed');
    } else {
      const answer = result.value;
      switch (answer.type) {
        case 'unlocked':
        case 'no_pin':
          this.problem = null;
          this.finishUnlock();
          return;
        case 'wrong_pin':
          this.problem = answer.locked_until !== null ? null : tn('staff.pin.wrong', answer.attempts_left);
          break;
        case 'locked_out':
          this.problem = null;
          break;
      }
    }
    this.render();
    this.overlay.querySelector<HTMLElement>(`.${PIN_INPUT_CLASS}:not([disabled])`)?.focus();
  }

  /** The kiosk PIN (`member` null, the 'set' form) or a crew member's own (the 'person' form). */
  private async submitPin(pin: string, repeat: string, member: CrewMember | null): Promise<void> {
    if (this.busy) return;
    this.problem = (member && crewMemberProblem(member)) ?? pinProblem(pin, repeat);
    if (this.problem === null) {
      this.busy = true;
      this.render();
      const result = await attempt(() => (member ? this.kiosk.setStaffPin(pin, member) : this.kiosk.setStaffPin(pin)));
      this.busy = false;
      if (result.ok && result.value.type === 'pin_set') {
        this.area.setProblem(null);
        this.area.setNote(member ? t('staff.crew.saved', { name: member.name }) : t('staff.pin.saved'));
        if (member) {
          this.show('menu');
          return;
        }
        this.mode = 'closed';
        this.pending = null;
        this.render();
        return;
      }
      if (result.ok && result.value.type === 'staff_locked') {
        this.relock(() => (member ? this.editCrew(this.crewTarget) : this.show('set')), result.value);
        return;
      }
      // Past the checks above, the kiosk refuses a crew member's PIN only when another person has it.
      const refused = result.ok && result.value.type === 'invalid_pin';
      this.problem = refused ? (member ? t('staff.crew.taken') : t('staff.pin.invalid')) : t('setup.error.failed');
    }
    this.render();
  }

  private render(): void {
    window.clearInterval(this.countdown);
    this.countdown = undefined;
    this.renderCorner();
    const overlay = this.overlay;
    // Whether staff functions are open as this page last heard: a test that locks them from the kiosk's side waits
    // for this before its next tap (test/support/door-harness.ts lockStaffFromKiosk).
    overlay.dataset['staffOpen'] = String(this.isOpen());
    if (this.mode === 'closed') {
      overlay.hidden = true;
      delete overlay.dataset['staffMode'];
      replaceChildren(overlay);
      return;
    }
    overlay.hidden = false;
    overlay.dataset['staffMode'] = this.mode;
    const staff = this.state?.staff ?? null;
    const panel = el('div', { class: 'staff-panel' });
    switch (this.mode) {
      case 'unlock':
        panel.append(...this.unlockContent(staff));
        break;
      case 'set':
        panel.append(...this.setContent(staff));
        break;
      case 'menu':
        panel.append(...this.menuContent());
        break;
      case 'person':
        panel.append(...this.personContent());
        break;
    }
    replaceChildren(overlay, panel);
  }

  private unlockContent(staff: StaffState | null): Node[] {
    const lockedUntil = staff?.locked_until ? Date.parse(staff.locked_until) : 0;
    const lockedOut = lockedUntil > Date.now();
    const input = pinInput('staff-pin-input', 'data-staff-pin-input');
    input.disabled = lockedOut || this.busy;
    const form = el(
      'form',
      { class: 'staff__form' },
      el('label', { for: 'staff-pin-input' }, t('staff.pin.enter')),
      el(
        'div',
        { class: 'staff__row' },
        input,
        el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'staff-unlock' }, t('staff.unlock')),
      ),
    );
    (form.querySelector('button') as HTMLButtonElement).disabled = lockedOut || this.busy;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const pin = input.value;
      input.value = '';
      if (pin) void this.submitUnlock(pin);
    });
    const nodes: Node[] = [el('h1', { class: 'staff__title' }, t('staff.title')), form];
    if (lockedOut) {
      const line = el('p', { class: 'banner banner--danger', role: 'alert', 'data-staff-lockout': '' });
      const tick = (): void => {
        const seconds = Math.ceil((lockedUntil - Date.now()) / 1000);
        if (seconds <= 0) {
          this.render();
          return;
        }
        line.dataset['seconds'] = String(seconds);
        line.textContent = t('staff.lockout', { time: minutesSeconds(seconds) });
      };
      tick();
      this.countdown = window.setInterval(tick, 1000);
      nodes.push(line);
    }
    if (this.problem) nodes.push(el('p', { class: 'staff__problem', role: 'alert', 'data-staff-problem': '' }, '✗ ', this.problem));
    nodes.push(this.cancelButton());
    return nodes;
  }

  private setContent(staff: StaffState | null): Node[] {
    const pin = pinInput('staff-new-pin', 'data-staff-new-pin');
    const repeat = pinInput('staff-repeat-pin', 'data-staff-repeat-pin');
    pin.disabled = repeat.disabled = this.busy;
    const form = el(
      'form',
      { class: 'staff__form' },
      el('label', { for: 'staff-new-pin' }, t('staff.pin.new')),
      pin,
      el('label', { for: 'staff-repeat-pin' }, t('staff.pin.repeat')),
      repeat,
      el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'staff-save-pin' }, t('staff.pin.save')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submitPin(pin.value, repeat.value, null);
    });
    const forced = this.forced();
    const nodes: Node[] = [
      el('h1', { class: 'staff__title' }, staff?.pin_set ? t('staff.pin.change_title') : t('staff.pin.set_title')),
      forced ? el('p', { class: 'banner', 'data-staff-pin-needed': '' }, t('staff.pin.needed')) : null,
      el('p', { class: 'staff__hint' }, t('staff.pin.rules')),
      form,
      this.problem ? el('p', { class: 'staff__problem', role: 'alert', 'data-staff-problem': '' }, '✗ ', this.problem) : null,
      forced ? null : this.cancelButton(),
    ].filter((node): node is HTMLElement => node !== null);
    return nodes;
  }

  /** The form for a crew member's own PIN: name, staff id (fixed once set) and role, the PIN twice. */
  private personContent(): Node[] {
    const member = this.crewTarget;
    const form = crewForm(member, this.busy, (typed, pin, repeat) => void this.submitPin(pin, repeat, typed));
    return [
      el('h1', { class: 'staff__title' }, member ? t('staff.crew.change_title', { name: member.name }) : t('staff.crew.add_title')),
      form,
      this.problem ? el('p', { class: 'staff__problem', role: 'alert', 'data-staff-problem': '' }, '✗ ', this.problem) : null,
      this.cancelButton(),
    ].filter((node): node is HTMLElement => node !== null);
  }

  private menuContent(): Node[] {
    const lookup = el('button', { type: 'button', class: 'button button--primary', 'data-action': 'staff-lookup' }, t('staff.menu.lookup'));
    lookup.addEventListener('click', () => {
      this.close();
      this.actions.openLookup();
    });
    const search = el('button', { type: 'button', class: 'button button--primary', 'data-action': 'staff-search' }, t('staff.menu.search'));
    search.addEventListener('click', () => {
      this.close();
      this.actions.openSearch();
    });
    const close = el('button', { type: 'button', class: 'button', 'data-action': 'staff-close' }, t('staff.menu.close'));
    close.addEventListener('click', () => this.close());
    return [
      el('h1', { class: 'staff__title' }, t('staff.menu.title')),
      el('div', { class: 'staff__buttons' }, lookup, search),
      this.area.element,
      close,
    ];
  }

  private cancelButton(): HTMLElement {
    const cancel = el('button', { type: 'button', class: 'button', 'data-action': 'staff-cancel' }, t('staff.cancel'));
    cancel.addEventListener('click', () => this.close());
    return cancel;
  }

  /** The "Staff" button on Ready; the no-PIN notice on the lookup screen (Setup and the menu carry their own). */
  private renderCorner(): void {
    const screen = this.screen();
    const corner = this.corner;
    if (this.mode !== 'closed' || this.state === null) {
      replaceChildren(corner);
      return;
    }
    if (screen === 'ready' || screen === 'lanes') {
      const open = el(
        'button',
        { type: 'button', class: 'button staff-corner__button', 'data-action': 'open-staff' },
        t('staff.menu.open'),
      );
      open.addEventListener('click', () => this.openMenu());
      replaceChildren(corner, open);
    } else if (screen === 'lookup') {
      replaceChildren(corner, ...this.area.lockControls());
    } else {
      replaceChildren(corner);
    }
  }
}

/** Is `target` one of the PIN fields (the keyboard-wedge capture leaves them alone)? */
export function isStaffInput(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.classList.contains(PIN_INPUT_CLASS) ||
      target.closest('[data-staff-area]') !== null ||
      target.closest('[data-staff-dialog]') !== null)
  );
}

/** The staff settings: the PIN, the language, Lock and Leave kiosk mode. */
export class StaffArea {
  readonly element: HTMLElement;
  private readonly primary: HTMLSelectElement;
  private readonly secondary: HTMLSelectElement;
  private readonly body: HTMLElement;
  private shownLanguage = '';
  private problem: string | null = null;
  private note: string | null = null;
  private state: KioskState | null = null;
  private logCheck: LogCheckResult | null = null;
  /** The crew member whose Remove was pressed once: the second press removes (a confirmation in place). */
  private confirmRemove: string | null = null;

  constructor(private readonly gate: StaffGate) {
    this.primary = el('select', { id: 'staff-language-primary', class: 'staff__select', 'data-language-primary': '' });
    this.secondary = el('select', { id: 'staff-language-secondary', class: 'staff__select', 'data-language-secondary': '' });
    for (const code of LANGUAGE_CODES) this.primary.append(el('option', { value: code }, LANGUAGE_NAMES[code]));
    this.secondary.append(el('option', { value: '' }, t('staff.language.none')));
    for (const code of LANGUAGE_CODES) this.secondary.append(el('option', { value: code }, LANGUAGE_NAMES[code]));
    this.body = el('div', { class: 'staff-area__body' });
    this.element = el('section', { class: 'staff-area', 'data-staff-area': '' }, this.body);
  }

  update(state: KioskState): void {
    this.state = state;
    // Built once in the constructor: say "None" in the language of the moment.
    const none = this.secondary.options[0];
    if (none) none.textContent = t('staff.language.none');
    const language = `${state.language.primary}|${state.language.secondary ?? ''}`;
    // The pickers follow the kiosk's setting when it changes, not while someone is choosing.
    if (language !== this.shownLanguage) {
      this.shownLanguage = language;
      this.primary.value = state.language.primary;
      this.secondary.value = state.language.secondary ?? '';
    }
    this.render();
  }

  setProblem(problem: string | null): void {
    this.problem = problem;
    if (problem) this.note = null;
    this.render();
  }

  setNote(note: string | null): void {
    this.note = note;
    this.render();
  }

  setLogCheck(check: LogCheckResult): void {
    this.logCheck = check;
    this.render();
  }

  /** The no-PIN notice or the Lock button, for a staff screen that has no staff area. */
  lockControls(): HTMLElement[] {
    const staff = this.state?.staff;
    if (!staff) return [];
    if (!staff.pin_set) return [noPinNotice()];
    return staff.unlocked ? [this.lockButton()] : [];
  }

  private lockButton(): HTMLElement {
    const lock = el('button', { type: 'button', class: 'button', 'data-action': 'staff-lock' }, t('staff.lock'));
    lock.addEventListener('click', () => void this.gate.lock());
    return lock;
  }

  private render(): void {
    const staff = this.state?.staff;
    if (!staff) {
      replaceChildren(this.body);
      return;
    }
    const setPin = el(
      'button',
      { type: 'button', class: 'button', 'data-action': 'staff-set-pin' },
      staff.pin_set ? t('staff.pin.change') : t('staff.pin.set'),
    );
    setPin.addEventListener('click', () => this.gate.setPin());
    const save = el('button', { type: 'button', class: 'button', 'data-action': 'save-language' }, t('staff.language.save'));
    save.addEventListener('click', () => {
      const primary = this.primary.value as LanguageCode;
      const secondary = this.secondary.value === '' ? null : (this.secondary.value as LanguageCode);
      void this.gate.saveLanguage(primary, secondary);
    });
    let leave: HTMLElement | null = null;
    if (staff.can_leave_kiosk_mode) {
      leave = el('button', { type: 'button', class: 'button', 'data-action': 'leave-kiosk-mode' }, t('staff.leave_kiosk_mode'));
      leave.addEventListener('click', () => void this.gate.leaveKioskMode());
    }
    const checkLog = el('button', { type: 'button', class: 'button', 'data-action': 'verify-log' }, t('staff.audit.check'));
    checkLog.addEventListener('click', () => void this.gate.verifyLog());
    replaceChildren(
      this.body,
      el('h2', { class: 'staff-area__title' }, t('staff.area.title')),
      staff.pin_set ? null : noPinNotice(),
      el('div', { class: 'staff__buttons' }, setPin, staff.pin_set && staff.unlocked ? this.lockButton() : null, leave),
      el(
        'div',
        { class: 'staff__language', 'data-language': this.shownLanguage },
        el('label', { for: 'staff-language-primary' }, t('staff.language.primary')),
        this.primary,
        el('label', { for: 'staff-language-secondary' }, t('staff.language.secondary')),
        this.secondary,
        save,
      ),
      staff.pin_set
        ? crewList(staff.people, this.confirmRemove, {
            edit: (member) => this.gate.editCrew(member),
            askRemove: (member) => {
              this.confirmRemove = member.staff_id;
              this.render();
            },
            remove: (member) => {
              this.confirmRemove = null;
              this.gate.removeCrew(member);
            },
          })
        : null,
      el('div', { class: 'staff__buttons' }, checkLog),
      this.logCheck ? logCheckLine(this.logCheck) : null,
      this.note ? el('p', { class: 'staff__note', 'data-staff-note': '' }, '✓ ', this.note) : null,
      this.problem ? el('p', { class: 'staff__problem', role: 'alert', 'data-staff-area-problem': '' }, '✗ ', this.problem) : null,
    );
  }
}

/** The audit log check's outcome, for IT: OK with the count and head, or the first broken record. */
function logCheckLine(check: LogCheckResult): HTMLElement {
  if (check.ok) {
    const text = tn('staff.audit.ok', check.records, { position: check.head.position, hash: check.head.hash.slice(0, 12) });
    return el('p', { class: 'staff__note', 'data-log-check': 'ok' }, '✓ ', text);
  }
  const text = tn('staff.audit.broken', check.records, { detail: check.broken?.message ?? '' });
  return el('p', { class: 'staff__problem', role: 'alert', 'data-log-check': 'broken' }, '✗ ', text);
}

function noPinNotice(): HTMLElement {
  return el('p', { class: 'banner staff__no-pin', 'data-staff-no-pin': '' }, '⚠ ', t('staff.no_pin'));
}

function minutesSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

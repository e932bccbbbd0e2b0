/**
 * The kiosk screens' controller: holds the little state the renderer owns (the
 * last problem to explain, a calibration's diagnosis; the verdict on screen in
 * verdict-display.ts, the status lookup in status-lookup.ts), turns scans into
 * KioskApi calls, and mounts the screen chooseScreen picks (mounted-screens.ts).
 * Decisions live in view/ and wedge/ as pure functions; this file only wires.
 *
 * Verdicts reach the screen one way only: the state push (onStateChange), as
 * the newest of `last_verdicts`. That is the only way a HID scanner's
 * verdicts arrive (the main process reads those), so the page's own scans use
 * it too; a `scan()` answer of type 'verdict' is not shown again.
 */
import { attempt } from './kiosk-bridge.js';
import type { KioskApi, KioskState, ReadDetails, ScanResult, ScannerDiagnosis, StaffLocked } from './kiosk-bridge-types.js';
import { language, setLanguage, t } from './messages/format.js';
import { mountScreen, type Mounted, type ScreenActions } from './mounted-screens.js';
import { isLookupInput } from './screens/lookup.js';
import { isIssuerPanelInput } from './screens/onsite-issuer-panel.js';
import { isStaffInput, StaffGate } from './screens/staff.js';
import type { OnsiteIssuerApi } from './onsite-issuer-bridge-types.js';
import { AnnulDialog, DoorSettings, isAnnulInput } from './screens/door-operations.js';
import { LaneSettings } from './screens/lane-settings.js';
import { isSearchInput, TicketSearchDialog } from './screens/ticket-search.js';
import { laneHalves, showsLanes } from './view/lanes-view-model.js';
import { prepareVerdictSound } from './sound.js';
import { StatusLookup } from './status-lookup.js';
import { chooseScreen, type ShownScreen } from './view/screen-choice.js';
import { enrollFailureText } from './view/setup-view-model.js';
import { doorLanguages, ENGLISH_ONLY, type DoorLanguages } from './view/language.js';
import { isStaffLocked, staffLockedText } from './view/staff-view-model.js';
import { verdictIdentity } from './view/verdict-view-model.js';
import { VerdictDisplay } from './verdict-display.js';
import { type ScannedText } from './wedge/classify.js';
import { startWedgeCapture } from './wedge/capture.js';

/** The read details of a scan that came without any (the foreign-layout refusal still names its layout). */
const NO_READ_DETAILS: ReadDetails = { terminator: 'pause', prefixKeys: [], suffixKeys: [], units: 0, durationMs: 0 };

export class KioskScreens {
  private state: KioskState | null = null;
  /** The verdict on screen, each lane's on the split screen, and what its buttons do (verdict-display.ts). */
  private readonly verdicts: VerdictDisplay;
  /** The status lookup (F2) and its "Undo check-in" (status-lookup.ts). */
  private readonly lookup: StatusLookup;
  /** The door's languages from the last state (docs/kiosk.md "Languages"). */
  private languages: DoorLanguages = ENGLISH_ONLY;
  /** A calibration code was just scanned on Ready: its diagnosis, until closed or the next scan. */
  private diagnosis: ScannerDiagnosis | null = null;
  /** The newest calibration already shown: one made later (a HID scanner read by the main process) is news. */
  private calibrationSeenAt: string | null = null;
  /**
   * The last problem to explain on Setup or Ready (enrollment failure, …); cleared by the next scan.
   * Its words are made when shown, so a language change also changes them.
   */
  private message: (() => string) | null = null;
  private busy = false;
  /** verdictIdentity of the newest verdict in the last state received: a different newest one is news. */
  private newestVerdict: string | null = null;
  /** The staff_code_ignored time last seen; undefined until the first state (noteStaffCodeIgnored). */
  private staffCodeIgnoredSeen: string | null | undefined = undefined;
  private mounted: Mounted = { screen: 'starting' };
  /** The staff PIN dialog and menu (screens/staff.ts): staff functions ask it first. */
  private staff: StaffGate | null = null;
  /** "Undo check-in" and the gate's settings (screens/door-operations.ts, docs/kiosk.md "Door operations"). */
  private annul: AnnulDialog | null = null;
  private doorSettings: DoorSettings | null = null;
  /** Several scanners (docs/kiosk.md "Several scanners"): the lanes in the staff settings. */
  private laneSettings: LaneSettings | null = null;
  /** "Find a ticket" (screens/ticket-search.ts, docs/kiosk.md "Finding a ticket"). */
  private search: TicketSearchDialog | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly kiosk: KioskApi,
    private readonly win: Window,
    /** This machine's issuer, when the host offers one (Electron's preload; not the browser host). */
    private readonly onsiteIssuer?: OnsiteIssuerApi,
  ) {
    const parts = { win, kiosk, state: () => this.state, staff: () => this.staff, annul: () => this.annul, render: () => this.render() };
    this.lookup = new StatusLookup({ ...parts, showStaffLocked: (locked) => this.showStaffLocked(locked) });
    this.verdicts = new VerdictDisplay({
      ...parts,
      secondLanguage: () => this.languages.secondary,
      closeLookup: () => this.lookup.hide(),
      closeDiagnosis: () => {
        this.diagnosis = null;
      },
      setMessage: (message) => this.setMessage(message),
    });
  }

  async start(): Promise<void> {
    this.staff = new StaffGate(this.win.document, this.kiosk, {
      openLookup: () => this.lookup.open(),
      openSearch: () => this.search?.open(),
    });
    this.search = new TicketSearchDialog(this.win.document, this.kiosk, this.staff);
    this.annul = new AnnulDialog(this.win.document, this.kiosk, this.staff);
    this.doorSettings = new DoorSettings(this.kiosk, this.staff);
    // The gate's settings ride in the staff settings: on Setup and in the staff menu (which the PIN opens).
    this.staff.area.element.append(this.doorSettings.element);
    this.laneSettings = new LaneSettings(this.kiosk, this.staff);
    this.staff.area.element.append(this.laneSettings.element);
    this.kiosk.onStateChange((state) => this.receiveState(state));
    startWedgeCapture(this.win.document, {
      isTypingTarget: (target) =>
        isLookupInput(target) || isIssuerPanelInput(target) || isStaffInput(target) || isAnnulInput(target) || isSearchInput(target),
      onScan: (scan, read) => void this.onScan(scan, read),
    });
    this.win.document.addEventListener('keydown', (event) => this.onShortcut(event));
    const first = await attempt(() => this.kiosk.getState());
    if (!first.ok) {
      this.showFatal(t('app.no_kiosk'));
      return;
    }
    // Verdicts from before this screen started are history, not news: list them, don't announce them.
    // (Unless a state push came first: then it is newer than this answer and already shown.)
    if (this.state === null) {
      this.newestVerdict = newestVerdictOf(first.value);
      this.calibrationSeenAt = first.value.calibration?.diagnosis.calibrated_at ?? null;
      this.receiveState(first.value);
    }
    // After the first screen is up, not on the first verdict's path (sound.ts).
    this.win.setTimeout(prepareVerdictSound, 0);
  }

  private receiveState(state: KioskState): void {
    this.state = state;
    // The language first: everything drawn from this state, the staff controls too, is in it.
    this.applyLanguages(doorLanguages(state));
    this.staff?.update(state);
    this.doorSettings?.update(state);
    this.annul?.update(state);
    this.search?.update(state);
    this.laneSettings?.update(state);
    // A new verdict, from the page's own scan or a HID scanner read by the main process.
    const newest = state.last_verdicts[0];
    const identity = newestVerdictOf(state);
    if (newest && identity !== this.newestVerdict) {
      const previous = this.newestVerdict;
      this.newestVerdict = identity;
      if (showsLanes(state)) this.verdicts.showOnLanes(state, previous);
      else this.verdicts.show(newest);
      return;
    }
    this.verdicts.followAttentionHold(state);
    this.verdicts.markReadAgain(state);
    this.noteStaffCodeIgnored(state);
    const calibration = state.calibration?.diagnosis ?? null;
    if (calibration && calibration.calibrated_at !== this.calibrationSeenAt) this.showDiagnosis(calibration);
    this.render();
  }

  /**
   * docs/kiosk.md "Calibration": a calibration code ignored on any input path (a HID scanner's read answers no
   * page call) is said on screen once. The first state only sets the mark: what was ignored before the page
   * loaded is not news.
   */
  private noteStaffCodeIgnored(state: KioskState): void {
    const at = state.staff_code_ignored?.at ?? null;
    const seen = this.staffCodeIgnoredSeen;
    this.staffCodeIgnoredSeen = at;
    if (seen === undefined || at === null || at === seen) return;
    this.message = () => t('staff.code_ignored');
  }

  /** A new language (staff chose it on Setup): every screen is built again in it, the verdict on screen too. */
  private applyLanguages(languages: DoorLanguages): void {
    const changed = setLanguage(languages.primary) || languages.secondary !== this.languages.secondary;
    this.languages = languages;
    const document = this.win.document;
    document.documentElement.lang = language();
    document.title = t('app.title');
    if (!changed) return;
    this.verdicts.relanguage();
    // Mounted screens built their fixed words when mounted: mount again.
    this.mounted = { screen: 'starting' };
  }

  private showDiagnosis(diagnosis: ScannerDiagnosis): void {
    this.calibrationSeenAt = diagnosis.calibrated_at;
    this.diagnosis = diagnosis;
    this.verdicts.forget();
  }

  // ---- scans -------------------------------------------------------------

  private async onScan(scan: ScannedText, read?: ReadDetails): Promise<void> {
    if (this.lookup.isOpen && this.state?.enrolled && !this.state.re_enroll_pending) {
      await this.lookup.lookUp(scan);
      return;
    }
    this.message = null;
    this.diagnosis = null;
    const enrolled = this.state?.enrolled ?? false;
    // A calibrated kiosk translates the wedge's reads itself (docs/kiosk.md "Calibration"): the text goes as it came.
    const translated = this.state?.calibration?.translating.includes('window') ?? false;
    if (scan.kind === 'layout_mismatch' && !translated) {
      if (enrolled) this.verdicts.show({ kind: 'refuse', reason: 'layout_mismatch' });
      else this.setMessage(() => t('reason.layout_mismatch'));
      // The kiosk records the refusal in its audit log (docs/kiosk.md "The kiosk's audit log"); the screen has it already.
      if (enrolled) void attempt(() => this.kiosk.scan(scan.text, { ...(read ?? NO_READ_DETAILS), foreignLayout: scan.layout }));
      return;
    }
    // Everything else goes to the kiosk, unrecognised text too: it is the authority on tickets (and
    // records the refusal), and it knows the calibration code, however a keyboard layout mangled it.
    this.busy = true;
    // Only Setup shows "busy". Re-rendering Ready (or a verdict) here would rebuild it and cost a
    // whole style, layout and paint just as the scan goes out, for nothing on screen.
    if (this.mounted.screen === 'setup') this.render();
    const result = await attempt(() => (read ? this.kiosk.scan(scan.text, read) : this.kiosk.scan(scan.text)));
    this.busy = false;
    if (!result.ok) {
      if (enrolled) this.verdicts.show({ kind: 'refuse', reason: 'scan_failed' });
      else this.setMessage(() => t('setup.error.failed'));
      return;
    }
    this.handleScanResult(result.value, scan);
  }

  private handleScanResult(result: ScanResult, scan: ScannedText | null): void {
    switch (result.type) {
      case 'verdict':
        // It reaches the screen as a state change (receiveState), whichever of the two arrives first.
        if (this.mounted.screen === 'setup') this.render();
        return;
      case 'enrolled':
      case 'confirm_re_enroll':
      case 'nothing_to_confirm':
        // The state (enrolled, re_enroll_pending) carries what to show next.
        this.render();
        return;
      case 'enroll_failed':
        this.setMessage(() => enrollFailureText(result.code));
        return;
      case 'not_enrolled':
        this.setMessage(() => (scan?.kind === 'ticket' ? t('setup.error.ticket_scanned') : t('setup.error.not_a_code')));
        return;
      case 'scanner_unauthorized':
        this.verdicts.show({ kind: 'refuse', reason: 'scanner_unauthorized' });
        return;
      case 'staff_pin_needed':
        // The setup code asks for a staff PIN first; the Setup screen offers to set it.
        this.setMessage(() => t('staff.pin_needed'));
        return;
      case 'storage_fault':
        // Nothing can be recorded: "scan again" would fail again for everyone. The state says what IT must do.
        this.verdicts.show({ kind: 'refuse', reason: 'storage_fault' });
        return;
      case 'repeat_read':
        // The verdict on screen stands; the state's read_again carries the mark.
        return;
      case 'calibrated':
        // Setup shows the stored calibration; Ready shows this one until closed.
        this.showDiagnosis(result.diagnosis);
        this.render();
        return;
      case 'calibration_unconfirmed':
        // Nothing is translated yet: the state's calibration_to_confirm asks staff to keep or discard it.
        this.render();
        return;
      case 'staff_unlocked':
        // docs/kiosk.md "Staff badges": the state names who is unlocked (Ready shows it); say it once here too.
        this.setMessage(() => t('staff.badge.unlocked', { name: result.person.name, role: t(`staff.role.${result.person.role}`) }));
        return;
      case 'staff_badge_refused':
        this.setMessage(() => t('staff.badge.refused', { message: result.message }));
        return;
      case 'attention_held':
        // docs/kiosk.md "Attention notes": the held verdict says "finish the note first" (the state's refused_scans).
        if (!this.verdicts.held) this.setMessage(() => t('verdict.attention_finish_first'));
        return;
      case 'id_check':
      case 'id_check_pending':
      case 'party':
      case 'party_pending':
        // docs/kiosk.md "ID checks": the state's id_check_prompt shows the ID screen (refused_scans: "finish first").
        this.render();
        return;
      case 'staff_code_ignored':
        // docs/kiosk.md "Calibration": nothing changed; the door says so and goes on.
        this.setMessage(() => t('staff.code_ignored'));
        return;
    }
  }

  private async resetCalibration(): Promise<void> {
    if (this.staff && !(await this.staff.unlocked())) return;
    const result = await attempt(() => this.kiosk.resetCalibration());
    this.diagnosis = null;
    if (!result.ok) this.setMessage(() => t('setup.error.failed'));
    else if (isStaffLocked(result.value)) this.showStaffLocked(result.value);
    else this.receiveState(result.value);
  }

  /** docs/kiosk.md "Calibration": keep or discard a translation that matches no known layout (a technician's call). */
  private async confirmCalibration(keep: boolean): Promise<void> {
    if (this.staff && !(await this.staff.unlocked())) return;
    const result = await attempt(() => this.kiosk.calibrate(keep));
    if (!keep) this.diagnosis = null;
    if (!result.ok) this.setMessage(() => t('setup.error.failed'));
    else if (isStaffLocked(result.value)) this.showStaffLocked(result.value);
    else this.receiveState(result.value);
  }

  private async confirmReEnroll(): Promise<void> {
    if (this.staff && !(await this.staff.unlocked())) return;
    this.message = null;
    this.busy = true;
    this.render();
    const result = await attempt(() => this.kiosk.confirmReEnroll());
    this.busy = false;
    if (!result.ok) this.setMessage(() => t('setup.error.failed'));
    else if (isStaffLocked(result.value)) this.showStaffLocked(result.value);
    else this.handleScanResult(result.value, null);
  }

  private async cancelReEnroll(): Promise<void> {
    const result = await attempt(() => this.kiosk.cancelReEnroll());
    if (result.ok) this.receiveState(result.value);
  }

  /** docs/kiosk.md "ID checks": Confirm, Deny or a supervisor's override; the answer is shown as a scan's would be. */
  private async answerIdCheck(call: () => Promise<ScanResult | StaffLocked>): Promise<void> {
    const result = await attempt(call);
    if (!result.ok) {
      this.setMessage(() => t('setup.error.failed'));
      return;
    }
    if (result.value.type === 'staff_locked') {
      this.showStaffLocked(result.value);
      return;
    }
    this.handleScanResult(result.value, null);
  }

  private onShortcut(event: KeyboardEvent): void {
    const screen = this.mounted.screen;
    if (event.key === 'F2' && (screen === 'ready' || screen === 'verdict' || screen === 'lanes') && this.state?.enrolled) {
      event.preventDefault();
      this.verdicts.hide();
      this.lookup.open();
    } else if (event.key === 'Escape') {
      if (screen === 'lookup') this.lookup.close();
      else if (screen === 'verdict') this.verdicts.dismiss();
      else if (screen === 'setup' && this.state?.re_enroll_pending) void this.cancelReEnroll();
    }
  }

  // ---- rendering ---------------------------------------------------------

  /** A staff call refused: the role it needs when someone with a lesser one is unlocked (docs/kiosk.md "Staff PIN"), else the PIN. */
  private showStaffLocked(locked: StaffLocked): void {
    this.setMessage(() => staffLockedText(locked) ?? t('staff.locked'));
  }

  private setMessage(message: () => string): void {
    this.message = message;
    this.render();
  }

  private render(): void {
    const screen = chooseScreen({
      state: this.state,
      verdictShown: this.verdicts.view !== null,
      lookupOpen: this.lookup.isOpen,
      lanes: showsLanes(this.state),
    });
    if (screen !== this.mounted.screen) this.mount(screen);
    const mounted = this.mounted;
    switch (mounted.screen) {
      case 'starting':
        this.root.replaceChildren(t('app.starting'));
        return;
      case 'setup':
        mounted.handle.update({ state: this.state, message: this.message?.() ?? null, busy: this.busy });
        return;
      case 'ready':
        if (this.state) mounted.handle.update({ state: this.state, notice: this.message?.() ?? null, diagnosis: this.diagnosis });
        return;
      case 'verdict':
        if (this.verdicts.view) mounted.handle.update(this.verdicts.view);
        return;
      case 'lookup':
        mounted.handle.update(this.lookup.props());
        return;
      case 'id_check':
        if (this.state?.id_check_prompt) {
          const prompt = this.state.id_check_prompt;
          mounted.handle.update({ prompt, finishFirst: prompt.refused_scans > 0 });
        }
        return;
      case 'party':
        if (this.state?.party_prompt)
          mounted.handle.update({ prompt: this.state.party_prompt, pickFirst: this.state.party_prompt.refused_scans > 0 });
        return;
      case 'lanes':
        if (showsLanes(this.state)) mounted.handle.update(laneHalves(this.state.lanes, this.verdicts.laneViews()));
        return;
    }
  }

  private mount(screen: ShownScreen): void {
    this.mounted = mountScreen(this.root, screen, this.screenActions(), this.onsiteIssuer, this.staff ?? undefined);
  }

  /** What the mounted screen's buttons do. */
  private screenActions(): ScreenActions {
    return {
      setup: {
        confirmReEnroll: () => void this.confirmReEnroll(),
        cancelReEnroll: () => void this.cancelReEnroll(),
        resetCalibration: () => void this.resetCalibration(),
        confirmCalibration: (keep) => void this.confirmCalibration(keep),
      },
      ready: {
        openLookup: () => this.lookup.open(),
        resetCalibration: () => void this.resetCalibration(),
        confirmCalibration: (keep) => void this.confirmCalibration(keep),
        closeDiagnosis: () => {
          this.diagnosis = null;
          this.render();
        },
      },
      verdict: this.verdicts.actions(),
      idCheck: {
        confirm: () => void this.answerIdCheck(() => this.kiosk.confirmIdCheck()),
        deny: () => void this.answerIdCheck(() => this.kiosk.denyIdCheck()),
        override: () => void this.answerIdCheck(() => this.kiosk.overrideIdCheck()),
      },
      party: {
        choose: (people) => void this.answerIdCheck(() => this.kiosk.chooseParty(people)),
        cancel: () => void this.answerIdCheck(() => this.kiosk.cancelParty()),
      },
      lookup: this.lookup.actions(),
    };
  }

  private showFatal(message: string): void {
    this.root.dataset['screen'] = 'starting';
    this.root.replaceChildren(message);
  }
}

function newestVerdictOf(state: KioskState): string | null {
  const newest = state.last_verdicts[0];
  return newest ? verdictIdentity(newest) : null;
}

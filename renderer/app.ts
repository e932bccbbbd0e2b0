/**
 * The kiosk screens' controller: holds the little state the renderer owns
 * (which verdict is up, whether lookup is open, the last problem to explain),
 * turns scans into KioskApi calls, and mounts the screen chooseScreen picks.
 * Decisions live in view/ and wedge/ as pure functions; this file only wires.
 *
 * Verdicts reach the screen one way only: the state push (onStateChange), as
 * the newest of `last_verdicts`. That is the only way a HID scanner's
 * verdicts arrive (the main process reads those), so the page's own scans use
 * it too; a `scan()` answer of type 'verdict' is not shown again.
 */
import { attempt } from './kiosk-bridge.js';
import type {
  KioskApi,
  KioskState,
  ReadDetails,
  ScanResult,
  ScannerDiagnosis,
  StaffLocked,
  TicketStatus,
  Verdict,
} from './kiosk-bridge-types.js';
import { language, setLanguage, t } from './messages/format.js';
import { mountLookup, isLookupInput, type LookupProps } from './screens/lookup.js';
import { mountReady, type ReadyProps } from './screens/ready.js';
import type { ScreenHandle } from './screens/screen.js';
import { isIssuerPanelInput } from './screens/onsite-issuer-panel.js';
import { mountSetup, type SetupProps } from './screens/setup.js';
import { isStaffInput, StaffGate } from './screens/staff.js';
import type { OnsiteIssuerApi } from './onsite-issuer-bridge-types.js';
import { mountVerdict } from './screens/verdict.js';
import { AnnulDialog, DoorSettings, isAnnulInput, type AnnulTarget } from './screens/door-operations.js';
import { LaneSettings } from './screens/lane-settings.js';
import { isSearchInput, TicketSearchDialog } from './screens/ticket-search.js';
import { mountIdCheck, type IdCheckProps } from './screens/id-check.js';
import { mountParty, type PartyProps } from './screens/party.js';
import { mountLanes } from './screens/lanes.js';
import { laneHalves, laneOfVerdict, showsLanes, type LaneHalfView } from './view/lanes-view-model.js';
import { offersAnnul } from './view/door-view-model.js';
import { playVerdictSound, prepareVerdictSound } from './sound.js';
import { chooseScreen, HANDOUTS_SHOWN_MS, VERDICT_SHOWN_MS, type ShownScreen } from './view/screen-choice.js';
import { enrollFailureText } from './view/setup-view-model.js';
import { failedStatusView, layoutMismatchStatusView, statusView, type StatusView } from './view/status-view-model.js';
import { doorLanguages, ENGLISH_ONLY, type DoorLanguages } from './view/language.js';
import { staffLockedText } from './view/staff-view-model.js';
import { verdictIdentity, verdictViewIn, type DoorVerdict, type VerdictView } from './view/verdict-view-model.js';
import { verdictDetailLines } from './view/verdict-details-view.js';
import { classifyScannedText, type ScannedText } from './wedge/classify.js';
import { startWedgeCapture } from './wedge/capture.js';

/** The read details of a scan that came without any (the foreign-layout refusal still names its layout). */
const NO_READ_DETAILS: ReadDetails = { terminator: 'pause', prefixKeys: [], suffixKeys: [], units: 0, durationMs: 0 };

type Mounted =
  | { screen: 'starting' }
  | { screen: 'setup'; handle: ScreenHandle<SetupProps> }
  | { screen: 'ready'; handle: ScreenHandle<ReadyProps> }
  | { screen: 'verdict'; handle: ScreenHandle<VerdictView> }
  | { screen: 'lookup'; handle: ScreenHandle<LookupProps> }
  | { screen: 'lanes'; handle: ScreenHandle<LaneHalfView[]> }
  | { screen: 'id_check'; handle: ScreenHandle<IdCheckProps> }
  | { screen: 'party'; handle: ScreenHandle<PartyProps> };

export class KioskScreens {
  private state: KioskState | null = null;
  private verdict: VerdictView | null = null;
  /** The kiosk verdict behind `verdict` (null for the renderer's own refusals), to match a "read again" to it. */
  private verdictShown: Verdict | null = null;
  /** The verdict behind `verdict`, the renderer's own refusals too: to say it again in another language. */
  private doorVerdict: DoorVerdict | null = null;
  /** The door's languages from the last state (docs/kiosk.md "Languages"). */
  private languages: DoorLanguages = ENGLISH_ONLY;
  /** A calibration code was just scanned on Ready: its diagnosis, until closed or the next scan. */
  private diagnosis: ScannerDiagnosis | null = null;
  /** The newest calibration already shown: one made later (a HID scanner read by the main process) is news. */
  private calibrationSeenAt: string | null = null;
  private verdictTimer: number | undefined;
  /** The attention verdict on screen holds the door: it stays until the core's hold ends (docs/kiosk.md "Attention notes"). */
  private attentionHeld = false;
  private lookupOpen = false;
  private lookupResult: StatusView | null = null;
  private lookupBusy = false;
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
  /** The ticket the lookup screen shows, for its "Undo check-in". */
  private lookupTicket: TicketStatus | null = null;
  /** Several scanners (docs/kiosk.md "Several scanners"): the lanes in the staff settings, and each lane's verdict on the split screen. */
  private laneSettings: LaneSettings | null = null;
  /** "Find a ticket" (screens/ticket-search.ts, docs/kiosk.md "Finding a ticket"). */
  private search: TicketSearchDialog | null = null;
  private readonly laneVerdicts = new Map<string, { verdict: DoorVerdict; view: VerdictView; timer: number }>();

  constructor(
    private readonly root: HTMLElement,
    private readonly kiosk: KioskApi,
    private readonly win: Window,
    /** This machine's issuer, when the host offers one (Electron's preload; not the browser host). */
    private readonly onsiteIssuer?: OnsiteIssuerApi,
  ) {}

  async start(): Promise<void> {
    this.staff = new StaffGate(this.win.document, this.kiosk, {
      openLookup: () => this.openLookup(),
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
      if (showsLanes(state)) this.showLaneVerdicts(state, previous);
      else this.showVerdict(newest);
      return;
    }
    this.followAttentionHold(state);
    this.markReadAgain(state);
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
    for (const [lane, shown] of this.laneVerdicts)
      this.laneVerdicts.set(lane, { ...shown, view: verdictViewIn(shown.verdict, languages.secondary) });
    if (this.doorVerdict) {
      const readAgain = this.verdict?.readAgainNote ? this.verdict : null;
      this.verdict = verdictViewIn(this.doorVerdict, languages.secondary);
      if (readAgain && this.state) this.markReadAgain(this.state);
    }
    // Mounted screens built their fixed words when mounted: mount again.
    this.mounted = { screen: 'starting' };
  }

  private showDiagnosis(diagnosis: ScannerDiagnosis): void {
    this.calibrationSeenAt = diagnosis.calibrated_at;
    this.diagnosis = diagnosis;
    this.verdict = null;
    this.verdictShown = null;
    this.doorVerdict = null;
  }

  /** docs/kiosk.md "Double reads": the scanner read the code on screen again; the verdict stays, with a discreet mark. */
  private markReadAgain(state: KioskState): void {
    const again = state.read_again;
    const shown = this.verdictShown;
    if (!again || !shown || !this.verdict || again.decided_at !== shown.decided_at || again.tid !== (shown.ticket?.tid ?? null)) return;
    const note = again.reads <= 2 ? t('verdict.read_again') : t('verdict.read_again_times', { count: again.reads - 1 });
    if (this.verdict.readAgainNote !== note) this.verdict = { ...this.verdict, readAgainNote: note };
  }

  // ---- scans -------------------------------------------------------------

  private async onScan(scan: ScannedText, read?: ReadDetails): Promise<void> {
    if (this.lookupOpen && this.state?.enrolled && !this.state.re_enroll_pending) {
      await this.lookUp(scan);
      return;
    }
    this.message = null;
    this.diagnosis = null;
    const enrolled = this.state?.enrolled ?? false;
    // A calibrated kiosk translates the wedge's reads itself (docs/kiosk.md "Calibration"): the text goes as it came.
    const translated = this.state?.calibration?.translating.includes('window') ?? false;
    if (scan.kind === 'layout_mismatch' && !translated) {
      if (enrolled) this.showVerdict({ kind: 'refuse', reason: 'layout_mismatch' });
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
      if (enrolled) this.showVerdict({ kind: 'refuse', reason: 'scan_failed' });
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
        this.showVerdict({ kind: 'refuse', reason: 'scanner_unauthorized' });
        return;
      case 'staff_pin_needed':
        // The setup code asks for a staff PIN first; the Setup screen offers to set it.
        this.setMessage(() => t('staff.pin_needed'));
        return;
      case 'storage_fault':
        // Nothing can be recorded: "scan again" would fail again for everyone. The state says what IT must do.
        this.showVerdict({ kind: 'refuse', reason: 'storage_fault' });
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
        if (!this.attentionHeld) this.setMessage(() => t('verdict.attention_finish_first'));
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

  // ---- status lookup -----------------------------------------------------

  private async lookUp(scan: ScannedText): Promise<void> {
    if (scan.kind === 'layout_mismatch') {
      this.lookupResult = layoutMismatchStatusView();
      this.render();
      return;
    }
    // An 'invalid' shape may be a ticket ID typed by hand: the kiosk accepts those.
    this.lookupBusy = true;
    this.render();
    const result = await attempt(() => this.kiosk.lookupStatus(scan.text));
    this.lookupBusy = false;
    const answer = result.ok ? result.value : null;
    this.lookupTicket = answer !== null && answer.type === 'status' ? answer.status : null;
    if (answer !== null && isStaffLocked(answer)) {
      // Staff only, and the unlock ran out meanwhile: back to Ready, saying why.
      this.lookupOpen = false;
      this.showStaffLocked(answer);
      return;
    }
    this.lookupResult = answer !== null ? statusView(answer) : failedStatusView();
    this.render();
  }

  private openLookup(): void {
    // Staff only: the PIN first when staff functions are locked (docs/kiosk.md "Staff PIN").
    const open = (): void => {
      this.lookupOpen = true;
      this.lookupResult = null;
      this.lookupTicket = null;
      this.render();
      this.win.document.querySelector<HTMLInputElement>('[data-lookup-input]')?.focus();
    };
    if (this.staff) this.staff.whenUnlocked(open);
    else open();
  }

  private closeLookup(): void {
    this.lookupOpen = false;
    this.render();
  }

  // ---- annul at the door (docs/kiosk.md "Annul at the door") ---------------

  /** "Undo check-in" on the Verdict screen: the last ADMIT, while the state offers annulment. */
  private verdictUndo(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.verdict || !verdict || verdict.kind !== 'admit' || !verdict.ticket) return null;
    const ticket = verdict.ticket;
    if (!offersAnnul(this.state, { tid: ticket.tid, checkedInAt: verdict.decided_at }, Date.now())) return null;
    const target: AnnulTarget = { tid: ticket.tid, holderName: ticket.holder_name ?? null, ticketType: ticket.ticket_type ?? null };
    return () => {
      // The ADMIT stays while staff undo it; the dialog closing returns to Ready.
      this.win.clearTimeout(this.verdictTimer);
      this.annul?.start(target, () => {
        if (this.verdictShown === verdict) this.dismissVerdict();
      });
    };
  }

  /**
   * docs/kiosk.md "Attention notes": a supervisor's override, offered while this attention verdict holds the door.
   * A lesser role (or no one) unlocked gets the PIN dialog naming the role needed, then the call runs again.
   */
  private verdictOverride(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.verdict || !verdict || !this.attentionHeld) return null;
    const run = (): void => {
      void attempt(() => this.kiosk.overrideAttention()).then((result) => {
        if (result.ok && isStaffLocked(result.value)) this.staff?.relock(run, result.value);
        else if (!result.ok) this.setMessage(() => t('setup.error.failed'));
        else if (this.verdictShown === verdict) this.dismissVerdict();
      });
    };
    return () => (this.staff ? this.staff.whenUnlocked(run) : run());
  }

  /**
   * docs/kiosk.md "Verdict details": the verdict's details, for a steward and up (the core's guard decides). The
   * verdict stays on screen while they are open, until the next scan or "Next scan".
   */
  private verdictDetails(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.verdict || !verdict || view.details) return null;
    const show = (change: Pick<VerdictView, 'details' | 'detailsProblem'>): void => {
      if (this.verdictShown !== verdict || !this.verdict) return;
      this.verdict = { ...this.verdict, ...change };
      this.render();
    };
    const run = (): void => {
      void attempt(() => this.kiosk.verdictDetails(verdict.decided_at)).then((result) => {
        if (!result.ok) show({ detailsProblem: t('details.failed') });
        else if (result.value.type === 'staff_locked') this.staff?.relock(run, result.value);
        else if (result.value.type === 'no_such_verdict') show({ detailsProblem: t('details.gone') });
        else show({ details: verdictDetailLines(result.value.details), detailsProblem: null });
      });
    };
    return () => {
      this.win.clearTimeout(this.verdictTimer);
      if (this.staff) this.staff.whenUnlocked(run);
      else run();
    };
  }

  /** "Undo check-in" on the lookup screen: a checked-in ticket, while the state offers annulment. */
  private lookupUndo(): (() => void) | null {
    const ticket = this.lookupTicket;
    if (this.lookupBusy || !ticket || ticket.status !== 'checked_in') return null;
    if (!offersAnnul(this.state, { tid: ticket.tid, checkedInAt: ticket.checked_in_at ?? null }, Date.now())) return null;
    const target: AnnulTarget = { tid: ticket.tid, holderName: ticket.holder_name ?? null, ticketType: ticket.ticket_type ?? null };
    return () =>
      this.annul?.start(target, (outcome) => {
        // Show the ticket's new state.
        if (outcome?.dataResult === 'annulled' && this.lookupOpen) void this.lookUp(classifyScannedText(ticket.tid));
      });
  }

  // ---- verdicts ----------------------------------------------------------

  /** docs/kiosk.md "Several scanners": every verdict since the last one shown, oldest first, each in its lane's half. */
  private showLaneVerdicts(state: KioskState, previousIdentity: string | null): void {
    const fresh: Verdict[] = [];
    for (const verdict of state.last_verdicts) {
      if (verdictIdentity(verdict) === previousIdentity) break;
      fresh.push(verdict);
    }
    for (const verdict of fresh.reverse()) this.showOnLane(verdict);
    this.render();
  }

  /** One lane's verdict, for its own screen time; the other lanes keep theirs. */
  private showOnLane(verdict: DoorVerdict): void {
    const lanes = this.state?.lanes;
    if (!lanes) return;
    const lane = laneOfVerdict(verdict, lanes);
    const view = verdictViewIn(verdict, this.languages.secondary);
    const before = this.laneVerdicts.get(lane);
    if (before) this.win.clearTimeout(before.timer);
    const timer = this.win.setTimeout(() => {
      if (this.laneVerdicts.get(lane)?.view !== view) return;
      this.laneVerdicts.delete(lane);
      this.render();
    }, shownMs(view));
    this.laneVerdicts.set(lane, { verdict, view, timer });
    this.lookupOpen = false;
    playVerdictSound(view.dataVerdict === 'handout' ? 'admit' : view.dataVerdict);
  }

  private showVerdict(verdict: DoorVerdict): void {
    if (showsLanes(this.state)) {
      // The page's own refusals (layout mismatch, a failed call) belong to the window's lane.
      this.showOnLane(verdict);
      this.render();
      return;
    }
    const view = verdictViewIn(verdict, this.languages.secondary);
    this.verdict = view;
    this.doorVerdict = verdict;
    this.verdictShown = 'decided_at' in verdict ? verdict : null;
    this.diagnosis = null;
    this.lookupOpen = false;
    playVerdictSound(view.dataVerdict === 'handout' ? 'admit' : view.dataVerdict);
    this.win.clearTimeout(this.verdictTimer);
    // docs/kiosk.md "Attention notes": a held attention verdict stays until Done or the hold's time (the core ends it).
    this.attentionHeld =
      view.attention !== undefined && view.attention !== null && this.state?.attention_hold?.decided_at === this.verdictShown?.decided_at;
    if (!this.attentionHeld) this.verdictTimer = this.win.setTimeout(() => this.dismissVerdict(), shownMs(view));
    this.render();
  }

  /**
   * docs/kiosk.md "Handouts": one tap hands `item` over. The verdict on screen is redrawn with what is left and what
   * the tap came to (given, refused with when and where, or kept for the issuer), and stays while items are left.
   */
  private async giveHandout(decidedAt: string, item: string): Promise<void> {
    const result = await attempt(() => this.kiosk.giveHandout(decidedAt, item));
    if (!result.ok || this.doorVerdict === null || !('decided_at' in this.doorVerdict) || this.doorVerdict.decided_at !== decidedAt) return;
    const answer = result.value;
    if (answer.type !== 'handout_given' && answer.type !== 'handout_refused') return;
    const note =
      answer.type === 'handout_refused'
        ? answer.reason === 'already_given'
          ? { kind: 'refused_given' as const, item, ...(answer.given.length > 0 ? { given: answer.given[answer.given.length - 1]! } : {}) }
          : { kind: 'refused_not_listed' as const, item }
        : answer.offline
          ? { kind: 'offline' as const, item }
          : undefined;
    if (this.doorVerdict.kind !== 'admit') return;
    const { handout_note: _previous, ...rest } = this.doorVerdict;
    const verdict = { ...rest, handouts: answer.handouts, ...(note === undefined ? {} : { handout_note: note }) };
    this.doorVerdict = verdict;
    this.verdictShown = verdict;
    this.verdict = verdictViewIn(verdict, this.languages.secondary);
    if (!this.attentionHeld) {
      this.win.clearTimeout(this.verdictTimer);
      this.verdictTimer = this.win.setTimeout(() => this.dismissVerdict(), shownMs(this.verdict));
    }
    this.render();
  }

  /** The core's hold ended (Done here or elsewhere, or its time): the verdict goes; scans refused meanwhile are said on it. */
  private followAttentionHold(state: KioskState): void {
    if (!this.attentionHeld || !this.verdict) return;
    const hold = state.attention_hold;
    if (!hold || hold.decided_at !== this.verdictShown?.decided_at) {
      this.dismissVerdict();
      return;
    }
    const heldNote = hold.refused_scans > 0 ? t('verdict.attention_finish_first') : null;
    if (heldNote !== (this.verdict.heldNote ?? null)) this.verdict = { ...this.verdict, heldNote };
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

  private async attentionDone(): Promise<void> {
    await attempt(() => this.kiosk.attentionDone());
    this.dismissVerdict();
  }

  private dismissVerdict(): void {
    this.attentionHeld = false;
    this.win.clearTimeout(this.verdictTimer);
    this.verdict = null;
    this.verdictShown = null;
    this.doorVerdict = null;
    this.render();
  }

  private onShortcut(event: KeyboardEvent): void {
    const screen = this.mounted.screen;
    if (event.key === 'F2' && (screen === 'ready' || screen === 'verdict' || screen === 'lanes') && this.state?.enrolled) {
      event.preventDefault();
      this.verdict = null;
      this.openLookup();
    } else if (event.key === 'Escape') {
      if (screen === 'lookup') this.closeLookup();
      else if (screen === 'verdict') this.dismissVerdict();
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
      verdictShown: this.verdict !== null,
      lookupOpen: this.lookupOpen,
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
        if (this.verdict) mounted.handle.update(this.verdict);
        return;
      case 'lookup':
        mounted.handle.update({ result: this.lookupResult, busy: this.lookupBusy, undoCheckIn: this.lookupUndo() });
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
        if (showsLanes(this.state)) {
          const views = new Map([...this.laneVerdicts].map(([lane, shown]) => [lane, shown.view]));
          mounted.handle.update(laneHalves(this.state.lanes, views));
        }
        return;
    }
  }

  private mount(screen: ShownScreen): void {
    this.root.replaceChildren();
    this.root.dataset['screen'] = screen;
    delete this.root.dataset['setupMode'];
    switch (screen) {
      case 'starting':
        this.mounted = { screen };
        return;
      case 'setup':
        this.mounted = {
          screen,
          handle: mountSetup(
            this.root,
            {
              confirmReEnroll: () => void this.confirmReEnroll(),
              cancelReEnroll: () => void this.cancelReEnroll(),
              resetCalibration: () => void this.resetCalibration(),
              confirmCalibration: (keep) => void this.confirmCalibration(keep),
            },
            this.onsiteIssuer,
            this.staff ?? undefined,
          ),
        };
        return;
      case 'ready':
        this.mounted = {
          screen,
          handle: mountReady(this.root, {
            openLookup: () => this.openLookup(),
            resetCalibration: () => void this.resetCalibration(),
            confirmCalibration: (keep) => void this.confirmCalibration(keep),
            closeDiagnosis: () => {
              this.diagnosis = null;
              this.render();
            },
          }),
        };
        return;
      case 'verdict':
        this.mounted = {
          screen,
          handle: mountVerdict(this.root, {
            dismiss: () => this.dismissVerdict(),
            undoCheckIn: (view) => this.verdictUndo(view),
            attentionDone: () => void this.attentionDone(),
            overrideAttention: (view) => this.verdictOverride(view),
            details: (view) => this.verdictDetails(view),
            giveHandout: (decidedAt, item) => void this.giveHandout(decidedAt, item),
          }),
        };
        return;
      case 'lanes':
        this.mounted = { screen, handle: mountLanes(this.root) };
        return;
      case 'id_check':
        this.mounted = {
          screen,
          handle: mountIdCheck(this.root, {
            confirm: () => void this.answerIdCheck(() => this.kiosk.confirmIdCheck()),
            deny: () => void this.answerIdCheck(() => this.kiosk.denyIdCheck()),
            override: () => void this.answerIdCheck(() => this.kiosk.overrideIdCheck()),
          }),
        };
        return;
      case 'party':
        this.mounted = {
          screen,
          handle: mountParty(this.root, {
            choose: (people) => void this.answerIdCheck(() => this.kiosk.chooseParty(people)),
            cancel: () => void this.answerIdCheck(() => this.kiosk.cancelParty()),
          }),
        };
        return;
      case 'lookup':
        this.mounted = {
          screen,
          handle: mountLookup(this.root, {
            submit: (text) => void this.lookUp(classifyScannedText(text)),
            close: () => this.closeLookup(),
          }),
        };
        return;
    }
  }

  private showFatal(message: string): void {
    this.root.dataset['screen'] = 'starting';
    this.root.replaceChildren(message);
  }
}

/** A staff-only call refused because staff functions are locked (docs/kiosk.md "Staff PIN"). */
function isStaffLocked(value: object): value is StaffLocked {
  return 'type' in value && value.type === 'staff_locked';
}

function newestVerdictOf(state: KioskState): string | null {
  const newest = state.last_verdicts[0];
  return newest ? verdictIdentity(newest) : null;
}

/** How long a verdict stays: its kind's time, longer while an ADMIT has items to hand over (docs/kiosk.md "Handouts"). */
function shownMs(view: VerdictView): number {
  const itemsLeft = view.handouts?.items.some((entry) => entry.left > 0) ?? false;
  return itemsLeft ? Math.max(HANDOUTS_SHOWN_MS, VERDICT_SHOWN_MS[view.dataVerdict]) : VERDICT_SHOWN_MS[view.dataVerdict];
}

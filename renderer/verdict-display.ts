/**
 * The verdict on screen: which one is up and for how long (docs/kiosk-screens.md "Screens and test hooks"), whether
 * an attention note holds it (docs/kiosk.md "Attention notes"), each lane's own on the split screen
 * (docs/kiosk-screens.md "Lanes"), and what its buttons do: Undo check-in, details, a supervisor's override, handouts.
 * The controller (app.ts) hands it the verdicts the state push brings and draws what it holds.
 */
import { attempt } from './kiosk-bridge.js';
import type { KioskApi, KioskState, Verdict } from './kiosk-bridge-types.js';
import { t } from './messages/format.js';
import type { AnnulDialog, AnnulTarget } from './screens/door-operations.js';
import type { StaffGate } from './screens/staff.js';
import type { VerdictActions } from './screens/verdict.js';
import { playVerdictSound } from './sound.js';
import { offersAnnul } from './view/door-view-model.js';
import type { DoorLanguages } from './view/language.js';
import { laneOfVerdict, showsLanes } from './view/lanes-view-model.js';
import { HANDOUTS_SHOWN_MS, VERDICT_SHOWN_MS } from './view/screen-choice.js';
import { isStaffLocked } from './view/staff-view-model.js';
import { verdictDetailLines } from './view/verdict-details-view.js';
import { verdictIdentity, verdictViewIn, type DoorVerdict, type VerdictView } from './view/verdict-view-model.js';

/** What the verdict display needs of the controller around it (app.ts). */
export interface VerdictHost {
  readonly win: Window;
  readonly kiosk: KioskApi;
  /** The last state received; null before the first. */
  state(): KioskState | null;
  /** The door's second language, for each verdict's second line (docs/kiosk.md "Languages"). */
  secondLanguage(): DoorLanguages['secondary'];
  staff(): StaffGate | null;
  annul(): AnnulDialog | null;
  /** A verdict came up: the status lookup closes (no drawing yet). */
  closeLookup(): void;
  /** A verdict came up on the full screen: a calibration's diagnosis on Ready goes (no drawing yet). */
  closeDiagnosis(): void;
  setMessage(message: () => string): void;
  render(): void;
}

export class VerdictDisplay {
  private shownView: VerdictView | null = null;
  /** The kiosk verdict behind `shownView` (null for the renderer's own refusals), to match a "read again" to it. */
  private verdictShown: Verdict | null = null;
  /** The verdict behind `shownView`, the renderer's own refusals too: to say it again in another language. */
  private doorVerdict: DoorVerdict | null = null;
  private verdictTimer: number | undefined;
  /** The attention verdict on screen holds the door: it stays until the core's hold ends (docs/kiosk.md "Attention notes"). */
  private attentionHeld = false;
  private readonly laneVerdicts = new Map<string, { verdict: DoorVerdict; view: VerdictView; timer: number }>();

  constructor(private readonly host: VerdictHost) {}

  /** The full-screen verdict to draw, or null. */
  get view(): VerdictView | null {
    return this.shownView;
  }

  /** An attention verdict holds the door (docs/kiosk.md "Attention notes"). */
  get held(): boolean {
    return this.attentionHeld;
  }

  /** Each lane's verdict on the split screen, by lane. */
  laneViews(): Map<string, VerdictView> {
    return new Map([...this.laneVerdicts].map(([lane, shown]) => [lane, shown.view]));
  }

  /** What the Verdict screen's buttons do. */
  actions(): VerdictActions {
    return {
      dismiss: () => this.dismiss(),
      undoCheckIn: (view) => this.undo(view),
      attentionDone: () => void this.attentionDone(),
      overrideAttention: (view) => this.override(view),
      details: (view) => this.details(view),
      giveHandout: (decidedAt, item) => void this.giveHandout(decidedAt, item),
    };
  }

  /** A new language: every verdict shown is said again in it (a "read again" mark too). */
  relanguage(): void {
    const secondary = this.host.secondLanguage();
    for (const [lane, shown] of this.laneVerdicts) this.laneVerdicts.set(lane, { ...shown, view: verdictViewIn(shown.verdict, secondary) });
    if (this.doorVerdict) {
      const readAgain = this.shownView?.readAgainNote ? this.shownView : null;
      this.shownView = verdictViewIn(this.doorVerdict, secondary);
      const state = this.host.state();
      if (readAgain && state) this.markReadAgain(state);
    }
  }

  /** A calibration's diagnosis takes the screen: the verdict behind it is forgotten (its timer still runs). */
  forget(): void {
    this.shownView = null;
    this.verdictShown = null;
    this.doorVerdict = null;
  }

  /** F2 over a verdict: the lookup takes the screen (the verdict's timer still runs). */
  hide(): void {
    this.shownView = null;
  }

  /** docs/kiosk.md "Double reads": the scanner read the code on screen again; the verdict stays, with a discreet mark. */
  markReadAgain(state: KioskState): void {
    const again = state.read_again;
    const shown = this.verdictShown;
    if (!again || !shown || !this.shownView || again.decided_at !== shown.decided_at || again.tid !== (shown.ticket?.tid ?? null)) return;
    const note = again.reads <= 2 ? t('verdict.read_again') : t('verdict.read_again_times', { count: again.reads - 1 });
    if (this.shownView.readAgainNote !== note) this.shownView = { ...this.shownView, readAgainNote: note };
  }

  /** docs/kiosk.md "Several scanners": every verdict since the last one shown, oldest first, each in its lane's half. */
  showOnLanes(state: KioskState, previousIdentity: string | null): void {
    const fresh: Verdict[] = [];
    for (const verdict of state.last_verdicts) {
      if (verdictIdentity(verdict) === previousIdentity) break;
      fresh.push(verdict);
    }
    for (const verdict of fresh.reverse()) this.showOnLane(verdict);
    this.host.render();
  }

  show(verdict: DoorVerdict): void {
    const state = this.host.state();
    if (showsLanes(state)) {
      // The page's own refusals (layout mismatch, a failed call) belong to the window's lane.
      this.showOnLane(verdict);
      this.host.render();
      return;
    }
    const view = verdictViewIn(verdict, this.host.secondLanguage());
    this.shownView = view;
    this.doorVerdict = verdict;
    this.verdictShown = 'decided_at' in verdict ? verdict : null;
    this.host.closeDiagnosis();
    this.host.closeLookup();
    playVerdictSound(view.dataVerdict === 'handout' ? 'admit' : view.dataVerdict);
    this.host.win.clearTimeout(this.verdictTimer);
    // docs/kiosk.md "Attention notes": a held attention verdict stays until Done or the hold's time (the core ends it).
    this.attentionHeld =
      view.attention !== undefined && view.attention !== null && state?.attention_hold?.decided_at === this.verdictShown?.decided_at;
    if (!this.attentionHeld) this.verdictTimer = this.host.win.setTimeout(() => this.dismiss(), shownMs(view));
    this.host.render();
  }

  /** The core's hold ended (Done here or elsewhere, or its time): the verdict goes; scans refused meanwhile are said on it. */
  followAttentionHold(state: KioskState): void {
    if (!this.attentionHeld || !this.shownView) return;
    const hold = state.attention_hold;
    if (!hold || hold.decided_at !== this.verdictShown?.decided_at) {
      this.dismiss();
      return;
    }
    const heldNote = hold.refused_scans > 0 ? t('verdict.attention_finish_first') : null;
    if (heldNote !== (this.shownView.heldNote ?? null)) this.shownView = { ...this.shownView, heldNote };
  }

  dismiss(): void {
    this.attentionHeld = false;
    this.host.win.clearTimeout(this.verdictTimer);
    this.shownView = null;
    this.verdictShown = null;
    this.doorVerdict = null;
    this.host.render();
  }

  /** One lane's verdict, for its own screen time; the other lanes keep theirs. */
  private showOnLane(verdict: DoorVerdict): void {
    const lanes = this.host.state()?.lanes;
    if (!lanes) return;
    const lane = laneOfVerdict(verdict, lanes);
    const view = verdictViewIn(verdict, this.host.secondLanguage());
    const before = this.laneVerdicts.get(lane);
    if (before) this.host.win.clearTimeout(before.timer);
    const timer = this.host.win.setTimeout(() => {
      if (this.laneVerdicts.get(lane)?.view !== view) return;
      this.laneVerdicts.delete(lane);
      this.host.render();
    }, shownMs(view));
    this.laneVerdicts.set(lane, { verdict, view, timer });
    this.host.closeLookup();
    playVerdictSound(view.dataVerdict === 'handout' ? 'admit' : view.dataVerdict);
  }

  // ---- the Verdict screen's buttons ---------------------------------------

  /** "Undo check-in" on the Verdict screen: the last ADMIT, while the state offers annulment (docs/kiosk.md "Annul at the door"). */
  private undo(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.shownView || !verdict || verdict.kind !== 'admit' || !verdict.ticket) return null;
    const ticket = verdict.ticket;
    if (!offersAnnul(this.host.state(), { tid: ticket.tid, checkedInAt: verdict.decided_at }, Date.now())) return null;
    const target: AnnulTarget = { tid: ticket.tid, holderName: ticket.holder_name ?? null, ticketType: ticket.ticket_type ?? null };
    return () => {
      // The ADMIT stays while staff undo it; the dialog closing returns to Ready.
      this.host.win.clearTimeout(this.verdictTimer);
      this.host.annul()?.start(target, () => {
        if (this.verdictShown === verdict) this.dismiss();
      });
    };
  }

  /**
   * docs/kiosk.md "Attention notes": a supervisor's override, offered while this attention verdict holds the door.
   * A lesser role (or no one) unlocked gets the PIN dialog naming the role needed, then the call runs again.
   */
  private override(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.shownView || !verdict || !this.attentionHeld) return null;
    const run = (): void => {
      void attempt(() => this.host.kiosk.overrideAttention()).then((result) => {
        if (result.ok && isStaffLocked(result.value)) this.host.staff()?.relock(run, result.value);
        else if (!result.ok) this.host.setMessage(() => t('setup.error.failed'));
        else if (this.verdictShown === verdict) this.dismiss();
      });
    };
    return () => {
      const staff = this.host.staff();
      if (staff) staff.whenUnlocked(run);
      else run();
    };
  }

  /**
   * docs/kiosk.md "Verdict details": the verdict's details, for a steward and up (the core's guard decides). The
   * verdict stays on screen while they are open, until the next scan or "Next scan".
   */
  private details(view: VerdictView): (() => void) | null {
    const verdict = this.verdictShown;
    if (view !== this.shownView || !verdict || view.details) return null;
    const show = (change: Pick<VerdictView, 'details' | 'detailsProblem'>): void => {
      if (this.verdictShown !== verdict || !this.shownView) return;
      this.shownView = { ...this.shownView, ...change };
      this.host.render();
    };
    const run = (): void => {
      void attempt(() => this.host.kiosk.verdictDetails(verdict.decided_at)).then((result) => {
        if (!result.ok) show({ detailsProblem: t('details.failed') });
        else if (result.value.type === 'staff_locked') this.host.staff()?.relock(run, result.value);
        else if (result.value.type === 'no_such_verdict') show({ detailsProblem: t('details.gone') });
        else show({ details: verdictDetailLines(result.value.details), detailsProblem: null });
      });
    };
    return () => {
      this.host.win.clearTimeout(this.verdictTimer);
      const staff = this.host.staff();
      if (staff) staff.whenUnlocked(run);
      else run();
    };
  }

  /**
   * docs/kiosk.md "Handouts": one tap hands `item` over. The verdict on screen is redrawn with what is left and what
   * the tap came to (given, refused with when and where, or kept for the issuer), and stays while items are left.
   */
  private async giveHandout(decidedAt: string, item: string): Promise<void> {
    const result = await attempt(() => this.host.kiosk.giveHandout(decidedAt, item));
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
    this.shownView = verdictViewIn(verdict, this.host.secondLanguage());
    if (!this.attentionHeld) {
      this.host.win.clearTimeout(this.verdictTimer);
      this.verdictTimer = this.host.win.setTimeout(() => this.dismiss(), shownMs(this.shownView));
    }
    this.host.render();
  }

  private async attentionDone(): Promise<void> {
    await attempt(() => this.host.kiosk.attentionDone());
    this.dismiss();
  }
}

/** How long a verdict stays: its kind's time, longer while an ADMIT has items to hand over (docs/kiosk.md "Handouts"). */
function shownMs(view: VerdictView): number {
  const itemsLeft = view.handouts?.items.some((entry) => entry.left > 0) ?? false;
  return itemsLeft ? Math.max(HANDOUTS_SHOWN_MS, VERDICT_SHOWN_MS[view.dataVerdict]) : VERDICT_SHOWN_MS[view.dataVerdict];
}

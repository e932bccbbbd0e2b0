/**
 * The status lookup (F2, staff only; docs/kiosk-screens.md "Screens and test hooks"): whether it is open, the ticket
 * it shows and its "Undo check-in" (docs/kiosk.md "Annul at the door"). The controller (app.ts) sends it the scans
 * made while it is open and draws what it holds.
 */
import { attempt } from './kiosk-bridge.js';
import type { KioskApi, KioskState, StaffLocked, TicketStatus } from './kiosk-bridge-types.js';
import type { AnnulDialog, AnnulTarget } from './screens/door-operations.js';
import type { LookupActions, LookupProps } from './screens/lookup.js';
import type { StaffGate } from './screens/staff.js';
import { offersAnnul } from './view/door-view-model.js';
import { isStaffLocked } from './view/staff-view-model.js';
import { failedStatusView, layoutMismatchStatusView, statusView, type StatusView } from './view/status-view-model.js';
import { classifyScannedText, type ScannedText } from './wedge/classify.js';

/** What the status lookup needs of the controller around it (app.ts). */
export interface LookupHost {
  readonly win: Window;
  readonly kiosk: KioskApi;
  /** The last state received; null before the first. */
  state(): KioskState | null;
  staff(): StaffGate | null;
  annul(): AnnulDialog | null;
  /** A staff call refused: said on the screen the controller shows. */
  showStaffLocked(locked: StaffLocked): void;
  render(): void;
}

export class StatusLookup {
  private opened = false;
  private result: StatusView | null = null;
  private busy = false;
  /** The ticket the lookup screen shows, for its "Undo check-in". */
  private ticket: TicketStatus | null = null;

  constructor(private readonly host: LookupHost) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** What the lookup screen shows. */
  props(): LookupProps {
    return { result: this.result, busy: this.busy, undoCheckIn: this.undo() };
  }

  /** What the lookup screen's input and buttons do. */
  actions(): LookupActions {
    return {
      submit: (text) => void this.lookUp(classifyScannedText(text)),
      close: () => this.close(),
    };
  }

  async lookUp(scan: ScannedText): Promise<void> {
    if (scan.kind === 'layout_mismatch') {
      this.result = layoutMismatchStatusView();
      this.host.render();
      return;
    }
    // An 'invalid' shape may be a ticket ID typed by hand: the kiosk accepts those.
    this.busy = true;
    this.host.render();
    const result = await attempt(() => this.host.kiosk.lookupStatus(scan.text));
    this.busy = false;
    const answer = result.ok ? result.value : null;
    this.ticket = answer !== null && answer.type === 'status' ? answer.status : null;
    if (answer !== null && isStaffLocked(answer)) {
      // Staff only, and the unlock ran out meanwhile: back to Ready, saying why.
      this.opened = false;
      this.host.showStaffLocked(answer);
      return;
    }
    this.result = answer !== null ? statusView(answer) : failedStatusView();
    this.host.render();
  }

  /** Opens the lookup: staff only, the PIN first when staff functions are locked (docs/kiosk.md "Staff PIN"). */
  open(): void {
    const show = (): void => {
      this.opened = true;
      this.result = null;
      this.ticket = null;
      this.host.render();
      this.host.win.document.querySelector<HTMLInputElement>('[data-lookup-input]')?.focus();
    };
    const staff = this.host.staff();
    if (staff) staff.whenUnlocked(show);
    else show();
  }

  close(): void {
    this.opened = false;
    this.host.render();
  }

  /** A verdict or a refusal takes the screen: the lookup closes without drawing. */
  hide(): void {
    this.opened = false;
  }

  /** "Undo check-in" on the lookup screen: a checked-in ticket, while the state offers annulment. */
  private undo(): (() => void) | null {
    const ticket = this.ticket;
    if (this.busy || !ticket || ticket.status !== 'checked_in') return null;
    if (!offersAnnul(this.host.state(), { tid: ticket.tid, checkedInAt: ticket.checked_in_at ?? null }, Date.now())) return null;
    const target: AnnulTarget = { tid: ticket.tid, holderName: ticket.holder_name ?? null, ticketType: ticket.ticket_type ?? null };
    return () =>
      this.host.annul()?.start(target, (outcome) => {
        // Show the ticket's new state.
        if (outcome?.dataResult === 'annulled' && this.opened) void this.lookUp(classifyScannedText(ticket.tid));
      });
  }
}

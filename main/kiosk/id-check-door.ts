/**
 * The door waiting for an ID check (docs/kiosk.md "ID checks"): a ticket whose type asks for one (`id_check` of the
 * synced list, or of the issuer's status answer for a kiosk without the list) is not checked in until the steward
 * presses Confirm or Deny on the ID screen. The scan's code and lane wait here; Confirm runs the scan again, sending
 * the check-in with `id_checked: true` and who confirmed; Deny records the refusal `id_check_failed` in the audit log
 * with the staff id, and nothing is sent. A ticket scan meanwhile is refused with "finish the ID check first" and
 * audited (as attention-door.ts does for a held note). A supervisor may override (overrideIdCheck): the entry goes
 * in on their authority, audited as an override with their staff id.
 */
import type { IdCheck } from '../../protocol/id-check.js';
import type { IdCheckPromptView, ScanResult } from './kiosk-api.js';
import type { Lane } from './decide/lanes.js';

export const ID_CHECK_PENDING_MESSAGE = 'finish the ID check first: Confirm or Deny, then scan again';

/** Who at the kiosk, as staff-access.ts names them. */
export interface IdCheckActor {
  staff_id: string | null;
  name: string | null;
  role: string;
}

export interface PendingIdCheck {
  code: string;
  lane: Lane | null;
  check: IdCheck;
  tid: string;
  eid: string;
  holder_name: string | null;
  ticket_type: string | null;
  asked_at: string;
  /** Who was at the kiosk when the ticket was scanned (a badge's unlock ends at the ticket scan). */
  scannedBy: IdCheckActor | null;
  /** Where the requirement came from: the synced list, or the issuer's status answer. */
  source: 'list' | 'status';
  refused: number;
}

export interface IdCheckDoorDeps {
  now: () => number;
  changed: () => void;
  /** Records a ticket scan refused while the prompt waits. */
  audit: (at: string) => void;
}

export class IdCheckDoor {
  private pending: PendingIdCheck | null = null;

  constructor(private readonly deps: IdCheckDoorDeps) {}

  /** The scan waits for the steward: the ID screen is shown (a new scan replaces nothing: refusal() comes first). */
  ask(pending: Omit<PendingIdCheck, 'refused' | 'asked_at'>): ScanResult {
    this.pending = { ...pending, asked_at: new Date(this.deps.now()).toISOString(), refused: 0 };
    this.deps.changed();
    return { type: 'id_check', prompt: this.view()! };
  }

  /** The refusal of a ticket scan while a prompt waits, or null when none does. */
  refusal(): ScanResult | null {
    if (this.pending === null) return null;
    this.pending.refused += 1;
    this.deps.audit(new Date(this.deps.now()).toISOString());
    this.deps.changed();
    return { type: 'id_check_pending', message: ID_CHECK_PENDING_MESSAGE };
  }

  /** Takes the waiting prompt (Confirm, Deny or an override): null when nothing waits. */
  take(): PendingIdCheck | null {
    const pending = this.pending;
    this.pending = null;
    if (pending !== null) this.deps.changed();
    return pending;
  }

  view(): IdCheckPromptView | null {
    const p = this.pending;
    if (p === null) return null;
    return {
      tid: p.tid,
      kind: p.check.kind,
      ...(p.check.min_age === undefined ? {} : { min_age: p.check.min_age }),
      holder: p.check.holder,
      band: p.check.band,
      asked_at: p.asked_at,
      lane: p.lane?.id ?? null,
      refused_scans: p.refused,
    };
  }
}

/**
 * The door waiting for how many of a party come in (docs/kiosk.md "Party tickets"): a ticket that admits several
 * people (`parties` of the synced list, or the issuer's status answer) is not checked in until the steward picks
 * 1 to remaining on the party screen. The scan's code and lane wait here; a pick runs the scan again with `people`
 * (door-scan.ts), Cancel drops it and nothing is sent. A ticket scan meanwhile is refused with "pick how many first"
 * and audited, as id-check-door.ts does for an ID check.
 */
import type { PartyState } from '../../protocol/party.js';
import type { Lane } from './decide/lanes.js';
import type { PartyPromptView, ScanResult } from './kiosk-api.js';

export const PARTY_PENDING_MESSAGE = 'pick how many of the party come in or leave (or Cancel), then scan again';

export interface PendingParty {
  code: string;
  lane: Lane | null;
  tid: string;
  eid: string;
  holder_name: string | null;
  ticket_type: string | null;
  party: PartyState;
  /** An entry asks how many come in (1..remaining), an exit how many leave (1..inside). */
  direction: 'entry' | 'exit';
  source: 'issuer' | 'known';
  /** The ID check this scan already passed (docs/kiosk.md "ID checks"): the check-in still carries it. */
  idChecked?: { staff_id: string | null };
  asked_at: string;
  refused: number;
}

export interface PartyDoorDeps {
  now: () => number;
  changed: () => void;
  /** Records a ticket scan refused while the prompt waits. */
  audit: (at: string) => void;
}

export class PartyDoor {
  private pending: PendingParty | null = null;

  constructor(private readonly deps: PartyDoorDeps) {}

  ask(pending: Omit<PendingParty, 'refused' | 'asked_at'>): ScanResult {
    this.pending = { ...pending, asked_at: new Date(this.deps.now()).toISOString(), refused: 0 };
    this.deps.changed();
    return { type: 'party', prompt: this.view()! };
  }

  /** The refusal of a ticket scan while a prompt waits, or null when none does. */
  refusal(): ScanResult | null {
    if (this.pending === null) return null;
    this.pending.refused += 1;
    this.deps.audit(new Date(this.deps.now()).toISOString());
    this.deps.changed();
    return { type: 'party_pending', message: PARTY_PENDING_MESSAGE };
  }

  /** Takes the waiting prompt (a pick or Cancel): null when nothing waits. */
  take(): PendingParty | null {
    const pending = this.pending;
    this.pending = null;
    if (pending !== null) this.deps.changed();
    return pending;
  }

  /** The most people the waiting prompt takes: what remains for an entry, who is inside for an exit (0: none waits). */
  most(): number {
    const p = this.pending;
    if (p === null) return 0;
    return p.direction === 'exit' ? p.party.inside : p.party.remaining;
  }

  /** The waiting prompt, left in place (a pick out of range is refused and the prompt stays). */
  peek(): PendingParty | null {
    return this.pending;
  }

  view(): PartyPromptView | null {
    const p = this.pending;
    if (p === null) return null;
    return {
      tid: p.tid,
      direction: p.direction,
      holder_name: p.holder_name,
      ticket_type: p.ticket_type,
      size: p.party.size,
      inside: p.party.inside,
      admitted_total: p.party.admitted_total,
      remaining: p.party.remaining,
      source: p.source,
      asked_at: p.asked_at,
      lane: p.lane?.id ?? null,
      refused_scans: p.refused,
    };
  }
}

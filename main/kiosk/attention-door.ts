/**
 * The door held by an attention verdict (docs/kiosk.md "Attention notes"): an ADMIT with a flag or a note
 * stays on screen until a steward taps Done (the page call attentionDone) or the configured time passes.
 * A ticket scan arriving meanwhile is refused with "finish the note first" and audited: nothing is checked
 * in, so the person simply scans again after Done (a queued scan would show its verdict long after the
 * person it belongs to had moved on). A supervisor may override the prompt instead (the page call
 * overrideAttention): the hold ends the same way, and the override is audited with the staff id. The decisions
 * are decide/attention.ts; this is the timer and the state.
 */
import type { Verdict } from '../../protocol/index.js';
import { activeHold, holdFor, overrideOf, type AttentionHold } from './decide/attention.js';
import type { AttentionHoldView, AttentionOverride, ScanResult } from './kiosk-api.js';

export const ATTENTION_HELD_MESSAGE = 'finish the attention note first: tap Done, then scan again';

export interface AttentionDoorDeps {
  now: () => number;
  holdSeconds: number;
  changed: () => void;
  /** Records a refused scan in the audit log (docs/kiosk.md "The kiosk's audit log"). */
  audit: (at: string) => void;
  /** Records an override in the audit log with who made it (staff-access.ts: the staff id, name and role). */
  auditOverride: (detail: Record<string, unknown>) => void;
}

/** How many overrides are remembered for the verdicts' details: as many as the core keeps verdicts. */
const OVERRIDES_KEPT = 20;

export class AttentionDoor {
  private hold: AttentionHold | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The overrides of recent verdicts, by their decided_at (docs/kiosk.md "Verdict details"). */
  private readonly overrides = new Map<string, AttentionOverride>();

  constructor(private readonly deps: AttentionDoorDeps) {}

  /** A verdict was shown: an attention ADMIT on the whole screen (no lane) holds the door; any other verdict does not. */
  shown(verdict: Verdict, lane: string | null): void {
    const hold = lane === null ? holdFor(verdict, this.deps.now(), this.deps.holdSeconds) : null;
    if (hold === null) return;
    this.hold = hold;
    clearTimeout(this.timer);
    // The hold ends by itself: the page learns it from the state pushed then.
    this.timer = setTimeout(() => this.end(), hold.until - this.deps.now());
    this.timer.unref?.();
  }

  /** The refusal of a ticket scan while the door is held, or null when it is not. */
  refusal(): ScanResult | null {
    const hold = activeHold(this.hold, this.deps.now());
    if (hold === null) return null;
    hold.refused += 1;
    this.deps.audit(new Date(this.deps.now()).toISOString());
    this.deps.changed();
    return { type: 'attention_held', message: ATTENTION_HELD_MESSAGE };
  }

  /** Done: the steward has read the note. True when a hold ended. */
  done(): boolean {
    if (this.hold === null) return false;
    this.end();
    return true;
  }

  /**
   * A supervisor's override (the guard has checked the role): ends the hold in force and records it, with `by`,
   * in the audit log. False when nothing held the door: nothing is recorded.
   */
  override(by: Omit<AttentionOverride, 'at'>): boolean {
    const now = this.deps.now();
    const record = overrideOf(this.hold, now);
    if (record === null) return false;
    const at = new Date(now).toISOString();
    this.deps.auditOverride({ ...record, at });
    this.overrides.set(record.decided_at, { at, ...by });
    if (this.overrides.size > OVERRIDES_KEPT) this.overrides.delete(this.overrides.keys().next().value!);
    this.end();
    return true;
  }

  /** Who overrode the prompt of the verdict decided at `decidedAt`, or null. */
  overrideFor(decidedAt: string): AttentionOverride | null {
    return this.overrides.get(decidedAt) ?? null;
  }

  view(): AttentionHoldView | null {
    const hold = activeHold(this.hold, this.deps.now());
    if (hold === null) return null;
    return { decided_at: hold.decidedAt, tid: hold.tid, until: new Date(hold.until).toISOString(), refused_scans: hold.refused };
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private end(): void {
    clearTimeout(this.timer);
    this.hold = null;
    this.deps.changed();
  }
}

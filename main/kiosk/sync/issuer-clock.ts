/**
 * The kiosk's clock against the issuer's (docs/kiosk.md "The kiosk's clock"): every issuer answer's Date
 * header, measured by the client (issuer-client.ts), adds to what is known of the offset (decide/clock.ts);
 * it is kept in the local store, so a kiosk that restarts offline still knows it. The door's decisions read
 * the issuer's time as last known from here.
 * In sync/: it keeps what the issuer's answers said; what that means is decided in decide/clock.ts.
 */
import { clockView, issuerTimeAsLastKnown, nextKnownClock, type ClockView, type KnownClock, type OffsetBounds } from '../decide/clock.js';
import type { LocalStore } from '../store/local-store.js';

/** Kept in the store when the estimate moved by at least this, or the last save is this old (ms). */
const SAVE_WHEN_MOVED_MS = 1000;
const SAVE_AT_LEAST_EVERY_MS = 60_000;

export interface IssuerClockDeps {
  store: LocalStore;
  /** The kiosk's own clock. */
  now: () => number;
  log: (line: string) => void;
  /** What is known changed: the state shown changes. */
  changed: () => void;
}

export class IssuerClock {
  private known: KnownClock | null;
  private saved: KnownClock | null;

  constructor(private readonly deps: IssuerClockDeps) {
    this.known = deps.store.getIssuerClock();
    this.saved = this.known;
  }

  /** The issuer's time as last known (epoch ms): what the door's offline decisions go by. */
  readonly issuerNow = (): number => issuerTimeAsLastKnown(this.deps.now(), this.known);

  /** What the screens and the heartbeat show. */
  view(): ClockView {
    return clockView(this.known);
  }

  /** One issuer answer's bounds on the offset (decide/clock.ts offsetBoundsOf). */
  note(bounds: OffsetBounds): void {
    const before = this.known;
    const known = nextKnownClock(before, bounds, this.deps.now());
    this.known = known;
    const moved = before === null || Math.abs(known.offset_ms - before.offset_ms) >= SAVE_WHEN_MOVED_MS;
    if (moved) this.deps.log(`Clock: the issuer's time is ${describeOffset(known.offset_ms)} this kiosk's (from its answers' Date).`);
    if (this.saveDue(known)) {
      try {
        this.deps.store.saveIssuerClock(known);
        this.saved = known;
      } catch (error) {
        // Kept in memory meanwhile: a failing write must not turn the issuer's answer into a failed request.
        this.deps.log(
          `Clock: the offset could not be kept in the local store (${error instanceof Error ? error.message : String(error)}).`,
        );
      }
    }
    if (moved) this.deps.changed();
  }

  /** Saved when it moved by a second or more, or a minute after the last save (sub-second noise is not worth a write per answer). */
  private saveDue(known: KnownClock): boolean {
    const saved = this.saved;
    if (saved === null) return true;
    return (
      Math.abs(known.offset_ms - saved.offset_ms) >= SAVE_WHEN_MOVED_MS ||
      known.measured_at_ms - saved.measured_at_ms >= SAVE_AT_LEAST_EVERY_MS
    );
  }
}

/** "2 h 0 min 3 s behind", "0.4 s ahead of": for the log. */
export function describeOffset(offsetMs: number): string {
  const side = offsetMs < 0 ? 'behind' : 'ahead of';
  const abs = Math.abs(offsetMs);
  if (abs < 60_000) return `${(abs / 1000).toFixed(1)} s ${side}`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = Math.round((abs % 60_000) / 1000);
  return `${hours > 0 ? `${hours} h ` : ''}${minutes} min ${seconds} s ${side}`;
}

/**
 * Entries and exits per minute and gate (docs/issuer.md "Arrivals chart" and "After-event report"): pure
 * counting, fed one admission event at a time by the dashboard's aggregator (issuer/services/dashboard.ts)
 * or one GROUP BY row at a time by the report (issuer/services/report.ts). Memory is one small record per
 * minute and gate with any entry or exit, whatever the number of attendees.
 */
import type { ArrivalsGateView, ArrivalsView } from '../dashboard-api.js';

export const MINUTE_MS = 60_000;
/** The dashboard's chart sends at most this many minutes (12 hours); the totals and the peak cover all of them. */
export const ARRIVALS_WINDOW_MINUTES = 12 * 60;
/** The series is at least this long (zeros before the first entry): a chart needs a time axis, not one point. */
export const ARRIVALS_MIN_MINUTES = 15;

/** The start of the minute of an ISO time, in ms; NaN when unreadable. */
export function minuteOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.NaN : Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/** Named labels (gates, ticket types) in order, numeric-aware; the unnamed (no gate, no type) last. */
export function compareLabels(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a.localeCompare(b, 'en', { numeric: true });
}

interface Cell {
  entries: number;
  exits: number;
}

/** Gate keys: '' cannot be a gate id (gates are non-empty), so it stands for "no gate". */
const gateKey = (gate: string | null): string => gate ?? '';
const gateOfKey = (key: string): string | null => (key === '' ? null : key);

export class ArrivalCounts {
  /** minute start (ms) → gate key → counts. */
  private readonly cells = new Map<number, Map<string, Cell>>();
  private readonly gateTotals = new Map<string, Cell>();
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;

  /** Counts `count` entries or exits at `gate` in the minute starting at `minuteMs`. Other actions are ignored. */
  add(minuteMs: number, gate: string | null, action: string, count = 1): void {
    if ((action !== 'entry' && action !== 'exit') || !Number.isFinite(minuteMs) || count <= 0) return;
    const key = gateKey(gate);
    let row = this.cells.get(minuteMs);
    if (row === undefined) this.cells.set(minuteMs, (row = new Map()));
    let cell = row.get(key);
    if (cell === undefined) row.set(key, (cell = { entries: 0, exits: 0 }));
    let total = this.gateTotals.get(key);
    if (total === undefined) this.gateTotals.set(key, (total = { entries: 0, exits: 0 }));
    if (action === 'entry') {
      cell.entries += count;
      total.entries += count;
    } else {
      cell.exits += count;
      total.exits += count;
    }
    this.first = Math.min(this.first, minuteMs);
    this.last = Math.max(this.last, minuteMs);
  }

  get empty(): boolean {
    return this.cells.size === 0;
  }

  /** Gates in order: named ones by name, no gate last. */
  gates(): (string | null)[] {
    return [...this.gateTotals.keys()].map(gateOfKey).sort(compareLabels);
  }

  totals(): { entries: number; exits: number } {
    let entries = 0;
    let exits = 0;
    for (const cell of this.gateTotals.values()) {
      entries += cell.entries;
      exits += cell.exits;
    }
    return { entries, exits };
  }

  gateTotal(gate: string | null): { entries: number; exits: number } {
    return { ...(this.gateTotals.get(gateKey(gate)) ?? { entries: 0, exits: 0 }) };
  }

  /** The counts of one minute and gate. */
  at(minuteMs: number, gate: string | null): { entries: number; exits: number } {
    return { ...(this.cells.get(minuteMs)?.get(gateKey(gate)) ?? { entries: 0, exits: 0 }) };
  }

  /** The minute with the most entries, all gates together; the earliest of equal ones; null without an entry. */
  peak(): { minuteMs: number; entries: number; byGate: { gate_id: string | null; entries: number }[] } | null {
    let best: { minuteMs: number; entries: number } | null = null;
    for (const [minuteMs, row] of this.cells) {
      let entries = 0;
      for (const cell of row.values()) entries += cell.entries;
      if (entries > 0 && (best === null || entries > best.entries || (entries === best.entries && minuteMs < best.minuteMs)))
        best = { minuteMs, entries };
    }
    if (best === null) return null;
    const row = this.cells.get(best.minuteMs)!;
    const byGate = [...row]
      .filter(([, cell]) => cell.entries > 0)
      .map(([key, cell]) => ({ gate_id: gateOfKey(key), entries: cell.entries }))
      .sort((a, b) => b.entries - a.entries || compareLabels(a.gate_id, b.gate_id));
    return { ...best, byGate };
  }

  /** First and last minute with an entry or exit (ms); null when empty. */
  span(): { first: number; last: number } | null {
    return this.empty ? null : { first: this.first, last: this.last };
  }

  /**
   * Per bucket of `bucketMinutes` (aligned on the epoch, so 5-minute buckets start at :00, :05, …) from the
   * first to the last minute with activity, every bucket present (zeros included), per gate. For the report.
   */
  buckets(bucketMinutes: number): { start: number; byGate: Map<string | null, { entries: number; exits: number }> }[] {
    const span = this.span();
    if (span === null) return [];
    const size = bucketMinutes * MINUTE_MS;
    const gates = this.gates();
    const out: { start: number; byGate: Map<string | null, { entries: number; exits: number }> }[] = [];
    for (let start = Math.floor(span.first / size) * size; start <= span.last; start += size) {
      const byGate = new Map(gates.map((gate) => [gate, { entries: 0, exits: 0 }]));
      for (let minute = start; minute < start + size; minute += MINUTE_MS) {
        const row = this.cells.get(minute);
        if (row === undefined) continue;
        for (const [key, cell] of row) {
          const sum = byGate.get(gateOfKey(key))!;
          sum.entries += cell.entries;
          sum.exits += cell.exits;
        }
      }
      out.push({ start, byGate });
    }
    return out;
  }

  /**
   * The dashboard's series: one value per minute without gaps, from the first minute with activity to now's
   * minute (or to the last active minute, if later; or only to the last active minute when that is a whole
   * window ago: an event long over shows its own minutes), the last `windowMinutes` at most, and at least
   * ARRIVALS_MIN_MINUTES (zeros before the first minute with activity).
   */
  view(nowMs: number, windowMinutes = ARRIVALS_WINDOW_MINUTES, minMinutes = ARRIVALS_MIN_MINUTES): ArrivalsView {
    const peak = this.peak();
    const base = {
      totals: this.totals(),
      peak: peak === null ? null : { minute: new Date(peak.minuteMs).toISOString(), entries: peak.entries },
      window_minutes: windowMinutes,
    };
    const span = this.span();
    if (span === null) return { minutes: [], gates: [], ...base, truncated: false };
    const nowMinute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
    const end = nowMinute > span.last && nowMinute - span.last < windowMinutes * MINUTE_MS ? nowMinute : span.last;
    const shortest = Math.min(minMinutes, windowMinutes);
    const start = Math.max(Math.min(span.first, end - (shortest - 1) * MINUTE_MS), end - (windowMinutes - 1) * MINUTE_MS);
    const minutes: number[] = [];
    for (let minute = start; minute <= end; minute += MINUTE_MS) minutes.push(minute);
    const gates: ArrivalsGateView[] = this.gates().map((gate) => {
      const total = this.gateTotal(gate);
      const counts = minutes.map((minute) => this.at(minute, gate));
      return {
        gate_id: gate,
        entries: counts.map((cell) => cell.entries),
        exits: counts.map((cell) => cell.exits),
        total_entries: total.entries,
        total_exits: total.exits,
      };
    });
    return { minutes: minutes.map((minute) => new Date(minute).toISOString()), gates, ...base, truncated: start > span.first };
  }
}

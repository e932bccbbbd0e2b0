/** Entries and exits per minute and gate (issuer/services/arrivals.ts): the dashboard's chart and the report's buckets. */
import { describe, expect, test } from 'vitest';
import { ArrivalCounts, minuteOf } from '../../../issuer/services/arrivals.js';

const T0 = Date.parse('2026-12-01T19:00:00.000Z');
const min = (m: number): number => T0 + m * 60_000;
const iso = (m: number): string => new Date(min(m)).toISOString();

function sample(): ArrivalCounts {
  const counts = new ArrivalCounts();
  // North: 3 at 19:00, 5 at 19:02; South: 2 at 19:02, 1 at 19:07 and one exit at 19:07; one entry without a gate at 19:01.
  counts.add(minuteOf('2026-12-01T19:00:10.000Z'), 'North', 'entry');
  counts.add(minuteOf('2026-12-01T19:00:59.999Z'), 'North', 'entry', 2);
  counts.add(min(2), 'North', 'entry', 5);
  counts.add(min(2), 'South', 'entry', 2);
  counts.add(min(7), 'South', 'entry');
  counts.add(min(7), 'South', 'exit');
  counts.add(min(1), null, 'entry');
  counts.add(min(3), 'North', 'annul');
  return counts;
}

describe('ArrivalCounts', () => {
  test('minuteOf floors to the minute; an unreadable time is not counted', () => {
    expect(minuteOf('2026-12-01T19:00:59.999Z')).toBe(T0);
    expect(Number.isNaN(minuteOf('yesterday'))).toBe(true);
    const counts = new ArrivalCounts();
    counts.add(minuteOf('yesterday'), 'North', 'entry');
    expect(counts.empty).toBe(true);
  });

  test('totals, gates in order (no gate last), annulments ignored, and the peak minute with its gates', () => {
    const counts = sample();
    expect(counts.totals()).toEqual({ entries: 12, exits: 1 });
    expect(counts.gates()).toEqual(['North', 'South', null]);
    expect(counts.peak()).toEqual({
      minuteMs: min(2),
      entries: 7,
      byGate: [
        { gate_id: 'North', entries: 5 },
        { gate_id: 'South', entries: 2 },
      ],
    });
  });

  test('the earliest of equal peaks wins; no entry, no peak (exits alone are not arrivals)', () => {
    const counts = new ArrivalCounts();
    counts.add(min(5), 'A', 'entry', 4);
    counts.add(min(1), 'B', 'entry', 4);
    expect(counts.peak()?.minuteMs).toBe(min(1));
    const exitsOnly = new ArrivalCounts();
    exitsOnly.add(min(1), 'A', 'exit', 3);
    expect(exitsOnly.peak()).toBeNull();
  });

  test('view: one value per minute without gaps, from the first minute to now, per gate', () => {
    const view = sample().view(min(9) + 30_000, 60, 10);
    expect(view.minutes).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(iso));
    expect(view.gates.map((gate) => gate.gate_id)).toEqual(['North', 'South', null]);
    expect(view.gates[0]).toEqual({
      gate_id: 'North',
      entries: [3, 0, 5, 0, 0, 0, 0, 0, 0, 0],
      exits: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      total_entries: 8,
      total_exits: 0,
    });
    expect(view.gates[1]!.exits).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0]);
    expect(view.peak).toEqual({ minute: iso(2), entries: 7 });
    expect(view.truncated).toBe(false);
  });

  test('at least 15 minutes: zeros before the first minute, so the chart has a time axis', () => {
    const view = sample().view(min(9) + 30_000);
    expect(view.minutes).toHaveLength(15);
    expect(view.minutes[0]).toBe(iso(-5));
    expect(view.gates[0]!.entries.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 3]);
    expect(view.truncated).toBe(false);
  });

  test('view: only the last window of minutes, with the totals and the peak of all of them', () => {
    const view = sample().view(min(9), 5);
    expect(view.minutes).toEqual([5, 6, 7, 8, 9].map(iso));
    expect(view.truncated).toBe(true);
    expect(view.totals).toEqual({ entries: 12, exits: 1 });
    expect(view.peak?.minute).toBe(iso(2));
  });

  test('view: an event long over shows its own minutes, not the empty hours since', () => {
    const view = sample().view(min(60 * 48), 60, 1);
    expect(view.minutes.at(0)).toBe(iso(0));
    expect(view.minutes.at(-1)).toBe(iso(7));
  });

  test('view of nothing: no minutes, no peak', () => {
    expect(new ArrivalCounts().view(T0)).toEqual({
      minutes: [],
      gates: [],
      totals: { entries: 0, exits: 0 },
      peak: null,
      window_minutes: 720,
      truncated: false,
    });
  });

  test('5-minute buckets aligned on :00, :05; every bucket present', () => {
    const buckets = sample().buckets(5);
    expect(buckets.map((bucket) => new Date(bucket.start).toISOString())).toEqual([iso(0), iso(5)]);
    expect(buckets[0]!.byGate.get('North')).toEqual({ entries: 8, exits: 0 });
    expect(buckets[0]!.byGate.get(null)).toEqual({ entries: 1, exits: 0 });
    expect(buckets[1]!.byGate.get('South')).toEqual({ entries: 1, exits: 1 });
    expect(buckets[1]!.byGate.get('North')).toEqual({ entries: 0, exits: 0 });
  });
});

/** The arrivals chart's series and the text summary screen readers read (dashboard/arrivals-summary.ts). */
import { afterEach, describe, expect, test } from 'vitest';
import { arrivalSeries, arrivalsSummary } from '../../../dashboard/arrivals-summary.js';
import { setLanguage } from '../../../dashboard/messages/format.js';
import type { ArrivalsView } from '../../../issuer/dashboard-api.js';

const view: ArrivalsView = {
  minutes: ['2026-12-01T19:00:00.000Z', '2026-12-01T19:01:00.000Z', '2026-12-01T19:02:00.000Z'],
  gates: [
    { gate_id: 'North', entries: [3, 0, 1200], exits: [0, 0, 0], total_entries: 1203, total_exits: 0 },
    { gate_id: null, entries: [0, 1, 0], exits: [0, 2, 0], total_entries: 1, total_exits: 2 },
  ],
  totals: { entries: 1204, exits: 2 },
  peak: { minute: '2026-12-01T19:02:00.000Z', entries: 1200 },
  window_minutes: 720,
  truncated: false,
};

// The clock is the machine's: UTC for this file (Node applies a TZ change at once).
process.env.TZ = 'UTC';
afterEach(() => setLanguage('en'));

describe('arrivals chart words', () => {
  test('a series per gate for entries, and exits only for gates that have any', () => {
    expect(arrivalSeries(view).map((s) => [s.label, s.values])).toEqual([
      ['North in', [3, 0, 1200]],
      ['(no gate) in', [0, 1, 0]],
      ['(no gate) out', [0, 2, 0]],
    ]);
  });

  test('the summary: peak minute, totals since the first minute, each gate ', () => {
    expect(arrivalsSummary(view)).toEqual([
      'Busiest minute: 19:02, with 1,200 entries at all gates together.',
      'Since 19:00: 1,204 entries and 2 exits.',
      'North: 1,203 entries, 0 exits.',
      '(no gate): 1 entry, 2 exits.',
    ]);
  });

  test('in German, with German numbers', () => {
    setLanguage('de');
    expect(arrivalsSummary(view)[0]).toBe('Stärkste Minute: 19:02, mit 1.200 Einlässen an allen Eingängen zusammen.');
  });

  test('"since" is the first minute with an entry or exit, not the zeros before it', () => {
    const padded: ArrivalsView = {
      ...view,
      minutes: ['2026-12-01T18:58:00.000Z', ...view.minutes],
      gates: view.gates.map((gate) => ({ ...gate, entries: [0, ...gate.entries], exits: [0, ...gate.exits] })),
    };
    expect(arrivalsSummary(padded)[1]).toBe('Since 19:00: 1,204 entries and 2 exits.');
  });

  test('nothing yet; a truncated series says so', () => {
    expect(arrivalsSummary({ ...view, gates: [], minutes: [], peak: null, totals: { entries: 0, exits: 0 } })).toEqual([
      'No entries or exits yet.',
    ]);
    expect(arrivalsSummary({ ...view, truncated: true }).at(-1)).toBe('The chart shows the last 12 hours; the figures count everything.');
  });
});

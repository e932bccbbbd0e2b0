/**
 * The arrivals chart's words (docs/issuer.md "Arrivals chart"): the text summary next to the chart, which is
 * what a screen reader reads instead of the canvas, and the series' names. Pure (no DOM), unit-tested in
 * Node (test/unit/dashboard/arrivals-summary.test.ts).
 */
import type { ArrivalsView } from '../issuer/dashboard-api.js';
import { formatCount, labelOrNone } from './format.js';
import { locale, t, tn } from './messages/format.js';

/** "19:42" in the dashboard's language (24-hour). */
export function formatMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

export const gateName = (gate: string | null): string => labelOrNone(gate, t('gates.no_gate'));

/** One chart series: a gate's entries, or its exits (drawn only for gates that have exits). */
export interface ArrivalSeries {
  gate_id: string | null;
  kind: 'entries' | 'exits';
  label: string;
  values: number[];
}

export function arrivalSeries(view: ArrivalsView): ArrivalSeries[] {
  const entries = view.gates.map((gate) => ({
    gate_id: gate.gate_id,
    kind: 'entries' as const,
    label: t('arrivals.series.entries', { gate: gateName(gate.gate_id) }),
    values: gate.entries,
  }));
  const exits = view.gates
    .filter((gate) => gate.total_exits > 0)
    .map((gate) => ({
      gate_id: gate.gate_id,
      kind: 'exits' as const,
      label: t('arrivals.series.exits', { gate: gateName(gate.gate_id) }),
      values: gate.exits,
    }));
  return [...entries, ...exits];
}

/** The sentences beside the chart: the peak minute, the totals since the first minute, then each gate. */
export function arrivalsSummary(view: ArrivalsView): string[] {
  if (view.peak === null && view.totals.exits === 0) return [t('arrivals.none')];
  const lines: string[] = [];
  if (view.peak !== null)
    lines.push(
      tn('arrivals.summary.peak', view.peak.entries, { time: formatMinute(view.peak.minute), count: formatCount(view.peak.entries) }),
    );
  // The first minute with an entry or exit (the series starts earlier when it is short: zeros before it).
  const since = view.minutes.find((_, i) => view.gates.some((gate) => gate.entries[i]! > 0 || gate.exits[i]! > 0)) ?? view.minutes[0];
  lines.push(
    t('arrivals.summary.totals', {
      time: since === undefined ? '–' : formatMinute(since),
      entries: tn('arrivals.summary.entries', view.totals.entries, { count: formatCount(view.totals.entries) }),
      exits: tn('arrivals.summary.exits', view.totals.exits, { count: formatCount(view.totals.exits) }),
    }),
  );
  for (const gate of view.gates)
    lines.push(
      t('arrivals.summary.gate', {
        gate: gateName(gate.gate_id),
        entries: tn('arrivals.summary.entries', gate.total_entries, { count: formatCount(gate.total_entries) }),
        exits: tn('arrivals.summary.exits', gate.total_exits, { count: formatCount(gate.total_exits) }),
      }),
    );
  if (view.truncated) lines.push(tn('arrivals.summary.window', Math.round(view.window_minutes / 60)));
  return lines;
}

/**
 * The after-event report's figures (`ticket-issuer report`, docs/issuer.md "After-event report"): gathered
 * through the database port, so the same code runs on SQLite and PostgreSQL, and streaming-friendly: the
 * database aggregates (GROUP BY per minute and gate, per outcome, per distinct delay second), and the two
 * row-level passes (double admissions, scanner contacts) read keyset pages and keep O(1) state per scanner
 * (plus the first REPORT_ROWS_LISTED double admissions to list). Nothing here holds one row per attendee.
 *
 * The definitions, each a pure function below (unit-tested in test/unit/issuer/report.test.ts):
 * - **checked in**: tickets whose check-in stands (inside or scanned out), annulled ones not; **inside at the
 *   end**: tickets inside now; **entries** and **exits**: every entry and exit recorded at the door
 *   (admission_events; re-entries and late history included), **annulments**: check-ins undone;
 * - **arrivals**: entries per gate per 5 minutes of door time (scanned_at), the **peak minute** the minute
 *   with the most entries at all gates together (the earliest of equal ones);
 * - **admitted offline**: entries a kiosk made before it had the issuer's answer (admitted_offline); the
 *   **sync delay** of an offline entry or exit is recorded_at − at (when the issuer got it − when it was
 *   scanned), its median and p95 by nearest rank, to the second;
 * - **double admissions found at sync**: the dashboard's alerts (services/dashboard.ts alertKindOf): an
 *   `already_used` answer that reached the issuer more than LATE_SCAN_MS after its scan (a kiosk admitted
 *   offline someone already inside), and `import_conflict` rows (both copies of the issuer admitted the ticket);
 * - **forged / revoked / wrong event**: scan attempts answered invalid_signature, revoked, wrong_event;
 * - **scanner uptime**: a scanner is heard from at each of its scan requests (scan_log.at, whatever the
 *   answer) and at its last heartbeat (the issuer keeps only the latest). First seen = its first request;
 *   last seen = the later of its last request and last heartbeat. A **gap** is two consecutive requests
 *   more than `gapMinutes` apart: no contact, which is a kiosk down or offline, or a quiet gate. Uptime =
 *   (last seen − first seen − gaps) / (last seen − first seen).
 */
import { ArrivalCounts, compareLabels, MINUTE_MS } from './arrivals.js';
import { alertKindOf, LATE_SCAN_MS, scanDelayMs } from './dashboard.js';
import { findLookupRow } from '../store/dashboard.js';
import { findEvent } from '../store/events.js';
import {
  admissionActionCounts,
  admissionsPerMinute,
  checkinStates,
  contactsOfKeys,
  eventKeys,
  offlineSyncDelays,
  scanOutcomes,
  scanOutcomeTickets,
  scansWithOutcome,
  ticketTotals,
  type ReportKeyRow,
} from '../store/report.js';
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';
import type { Sql } from '../store/sql.js';

/** Arrivals are shown per this many minutes. */
export const REPORT_BUCKET_MINUTES = 5;
/** A scanner not heard from for longer than this has a gap (--gap-minutes). */
export const DEFAULT_GAP_MINUTES = 10;
/** Double admissions listed one by one (all are counted). */
export const REPORT_ROWS_LISTED = 100;
/** Gaps listed per scanner (all are counted and summed). */
export const GAPS_LISTED = 20;
/** Rows per keyset page. */
const PAGE = 2_000;

export interface ReportTotals {
  issued: number;
  /** Tickets whose check-in stands (inside or scanned out). */
  checked_in: number;
  /** Tickets inside at the end (now). */
  inside: number;
  entries: number;
  exits: number;
  /** Check-ins undone (annul records). */
  annulled: number;
  revoked: number;
}

export interface ReportBucket {
  start: string;
  /** Aligned with ReportData.arrivals.gates. */
  entries: number[];
  exits: number[];
}

export interface DelayStats {
  count: number;
  median_seconds: number;
  p95_seconds: number;
  max_seconds: number;
}

export interface HistogramBin {
  label: string;
  /** Seconds, inclusive. */
  from: number;
  /** Seconds, exclusive; null for the last, open bin. */
  to: number | null;
  count: number;
}

export interface DoubleAdmission {
  kind: 'offline_double_admission' | 'merged_double_admission';
  at: string;
  scanned_at: string | null;
  tid: string | null;
  holder_name: string | null;
  gate_id: string | null;
  scanner: string | null;
  delay_seconds: number | null;
  /** The admission that got there first. */
  first_checked_in_at: string | null;
  first_gate_id: string | null;
}

export interface AttemptCounts {
  attempts: number;
  tickets: number;
  by_gate: { gate_id: string | null; attempts: number }[];
}

export interface ScannerUptime {
  api_key_id: string;
  scanner_id: string;
  name: string;
  gate_id: string | null;
  enrolled_at: string;
  revoked_at: string | null;
  first_seen: string | null;
  last_seen: string | null;
  requests: number;
  /** Requests that reached the issuer more than LATE_SCAN_MS after their scan: scanned while offline. */
  synced_late: number;
  gaps: { from: string; to: string; minutes: number }[];
  gap_count: number;
  gap_minutes_total: number;
  /** 0..1, null when first and last seen are the same moment (or never seen). */
  uptime: number | null;
}

export interface ReportData {
  event: { eid: string; name: string; venue: string; date: string; ends_at: string };
  generated_at: string;
  totals: ReportTotals;
  arrivals: {
    bucket_minutes: number;
    gates: (string | null)[];
    buckets: ReportBucket[];
    gate_totals: { gate_id: string | null; entries: number; exits: number }[];
    peak: { minute: string; entries: number; by_gate: { gate_id: string | null; entries: number }[] } | null;
  };
  offline: {
    entries: number;
    offline_entries: number;
    /** offline_entries / entries, null without entries. */
    share: number | null;
    offline_exits: number;
    delays: DelayStats | null;
    histogram: HistogramBin[];
  };
  double_admissions: { late_scan_seconds: number; offline: number; merged: number; listed: DoubleAdmission[] };
  attempts: { forged: AttemptCounts; revoked: AttemptCounts; wrong_event: AttemptCounts };
  scanners: { gap_minutes: number; list: ScannerUptime[] };
}

export interface ReportOptions {
  gapMinutes?: number;
  now?: () => number;
  /** Called between the steps, for the CLI's progress line. */
  onStep?: (step: string) => void;
}

const num = (value: unknown): number => Number(value ?? 0);

/** Nearest-rank quantile of a distribution given as (value, count) pairs sorted by value. Pure. */
export function quantile(distribution: readonly { seconds: number; n: number }[], q: number): number | null {
  const total = distribution.reduce((sum, row) => sum + row.n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const row of distribution) {
    seen += row.n;
    if (seen >= rank) return row.seconds;
  }
  return distribution.at(-1)!.seconds;
}

/** Median, p95 and max of the sync delays; null without any. Negative delays (a kiosk clock ahead) count as 0. Pure. */
export function delayStats(rows: readonly { seconds: number; n: number }[]): DelayStats | null {
  const distribution = normaliseDelays(rows);
  if (distribution.length === 0) return null;
  return {
    count: distribution.reduce((sum, row) => sum + row.n, 0),
    median_seconds: quantile(distribution, 0.5)!,
    p95_seconds: quantile(distribution, 0.95)!,
    max_seconds: distribution.at(-1)!.seconds,
  };
}

function normaliseDelays(rows: readonly { seconds: number; n: number }[]): { seconds: number; n: number }[] {
  const merged = new Map<number, number>();
  for (const row of rows) {
    const seconds = Math.max(0, num(row.seconds));
    merged.set(seconds, (merged.get(seconds) ?? 0) + num(row.n));
  }
  return [...merged].map(([seconds, n]) => ({ seconds, n })).sort((a, b) => a.seconds - b.seconds);
}

/**
 * The histogram's bins: how late offline scans reached the issuer. The labels are shown as they are in every
 * language of the report: s, min and h are written the same in all four (as on the dashboard).
 */
export const DELAY_BINS: readonly { label: string; from: number; to: number | null }[] = [
  { label: '< 30 s', from: 0, to: 30 },
  { label: '30 s – 1 min', from: 30, to: 60 },
  { label: '1 – 5 min', from: 60, to: 300 },
  { label: '5 – 15 min', from: 300, to: 900 },
  { label: '15 – 60 min', from: 900, to: 3600 },
  { label: '1 – 4 h', from: 3600, to: 14_400 },
  { label: '≥ 4 h', from: 14_400, to: null },
];

/** Pure. */
export function delayHistogram(rows: readonly { seconds: number; n: number }[]): HistogramBin[] {
  const bins = DELAY_BINS.map((bin) => ({ ...bin, count: 0 }));
  for (const row of normaliseDelays(rows)) {
    const bin = bins.find((b) => row.seconds >= b.from && (b.to === null || row.seconds < b.to))!;
    bin.count += row.n;
  }
  return bins;
}

/** Totals from the counts per ticket state and per admission action. Pure. */
export function reportTotals(
  tickets: { issued: number; revoked: number },
  states: readonly { state: string; n: number }[],
  actions: readonly { action: string; n: number }[],
): ReportTotals {
  const state = (name: string): number => num(states.find((row) => row.state === name)?.n);
  const action = (name: string): number => num(actions.find((row) => row.action === name)?.n);
  return {
    issued: tickets.issued,
    checked_in: state('inside') + state('outside'),
    inside: state('inside'),
    entries: action('entry'),
    exits: action('exit'),
    annulled: action('annul'),
    revoked: tickets.revoked,
  };
}

/** Arrival counts from the per-minute GROUP BY rows ('YYYY-MM-DDTHH:MM'). Pure. */
export function arrivalsFromRows(rows: readonly { minute: string; gate_id: string | null; action: string; n: number }[]): ArrivalCounts {
  const counts = new ArrivalCounts();
  for (const row of rows) counts.add(Date.parse(`${row.minute}:00.000Z`), row.gate_id, row.action, num(row.n));
  return counts;
}

/** The report's arrivals section from the counts. Pure. */
export function arrivalsSection(counts: ArrivalCounts, bucketMinutes = REPORT_BUCKET_MINUTES): ReportData['arrivals'] {
  const gates = counts.gates();
  const peak = counts.peak();
  return {
    bucket_minutes: bucketMinutes,
    gates,
    buckets: counts.buckets(bucketMinutes).map((bucket) => ({
      start: new Date(bucket.start).toISOString(),
      entries: gates.map((gate) => bucket.byGate.get(gate)!.entries),
      exits: gates.map((gate) => bucket.byGate.get(gate)!.exits),
    })),
    gate_totals: gates.map((gate) => ({ gate_id: gate, ...counts.gateTotal(gate) })),
    peak: peak === null ? null : { minute: new Date(peak.minuteMs).toISOString(), entries: peak.entries, by_gate: peak.byGate },
  };
}

/** Forged, revoked and wrong-event attempts from the outcome counts. Pure. */
export function attemptsFrom(
  rows: readonly { outcome: string; gate_id: string | null; n: number }[],
  tickets: readonly { outcome: string; tickets: number }[],
): ReportData['attempts'] {
  const of = (outcome: string): AttemptCounts => {
    const mine = rows.filter((row) => row.outcome === outcome);
    return {
      attempts: mine.reduce((sum, row) => sum + num(row.n), 0),
      tickets: num(tickets.find((row) => row.outcome === outcome)?.tickets),
      by_gate: mine.map((row) => ({ gate_id: row.gate_id, attempts: num(row.n) })).sort((a, b) => compareLabels(a.gate_id, b.gate_id)),
    };
  };
  return { forged: of('invalid_signature'), revoked: of('revoked'), wrong_event: of('wrong_event') };
}

/**
 * Scanner uptime, fed the scan requests in id order, one keyset page at a time: O(1) state per scanner,
 * plus up to GAPS_LISTED gaps each. Pure.
 */
export class UptimeTracker {
  private readonly state = new Map<
    string,
    { first: number; last: number; requests: number; late: number; gaps: ScannerUptime['gaps']; gapCount: number; gapMs: number }
  >();

  constructor(private readonly gapMinutes: number) {}

  add(contact: { at: string; api_key_id: string; scanned_at: string | null }): void {
    const at = Date.parse(contact.at);
    if (Number.isNaN(at)) return;
    let state = this.state.get(contact.api_key_id);
    if (state === undefined) {
      state = { first: at, last: at, requests: 0, late: 0, gaps: [], gapCount: 0, gapMs: 0 };
      this.state.set(contact.api_key_id, state);
    }
    state.requests++;
    const delay = scanDelayMs({ at: contact.at, scanned_at: contact.scanned_at });
    if (delay !== null && delay > LATE_SCAN_MS) state.late++;
    if (at - state.last > this.gapMinutes * MINUTE_MS) {
      state.gapCount++;
      state.gapMs += at - state.last;
      if (state.gaps.length < GAPS_LISTED)
        state.gaps.push({
          from: new Date(state.last).toISOString(),
          to: new Date(at).toISOString(),
          minutes: Math.round((at - state.last) / MINUTE_MS),
        });
    }
    state.first = Math.min(state.first, at);
    state.last = Math.max(state.last, at);
  }

  uptime(key: ReportKeyRow): ScannerUptime {
    const state = this.state.get(key.api_key_id);
    const heartbeat = key.heartbeat_at === null ? Number.NaN : Date.parse(key.heartbeat_at);
    const first = state?.first ?? null;
    let last = state?.last ?? null;
    if (!Number.isNaN(heartbeat) && first !== null && heartbeat > last!) last = heartbeat;
    const span = first === null || last === null ? 0 : last - first;
    return {
      api_key_id: key.api_key_id,
      scanner_id: key.scanner_id,
      name: key.scanner_name ?? key.scanner_id,
      gate_id: key.gate_id,
      enrolled_at: key.created_at,
      revoked_at: key.revoked_at,
      first_seen: first === null ? null : new Date(first).toISOString(),
      last_seen: last === null ? null : new Date(last).toISOString(),
      requests: state?.requests ?? 0,
      synced_late: state?.late ?? 0,
      gaps: state?.gaps ?? [],
      gap_count: state?.gapCount ?? 0,
      gap_minutes_total: Math.round((state?.gapMs ?? 0) / MINUTE_MS),
      uptime: span <= 0 ? null : Math.max(0, (span - (state?.gapMs ?? 0)) / span),
    };
  }
}

/** Everything the report shows, read from `db` (best a snapshot: SqlDatabase.snapshot). */
export async function gatherReport(db: Sql, eid: string, options: ReportOptions = {}): Promise<ReportData | null> {
  const step = options.onStep ?? (() => {});
  const gapMinutes = options.gapMinutes ?? DEFAULT_GAP_MINUTES;
  const event = await findEvent(db, eid);
  if (event === undefined) return null;

  step('totals');
  const actions = await admissionActionCounts(db, eid);
  const totals = reportTotals(await ticketTotals(db, eid), await checkinStates(db, eid), actions);

  step('arrivals per minute and gate');
  const arrivals = arrivalsSection(arrivalsFromRows(await admissionsPerMinute(db, eid)));

  step('offline admissions and their sync delays');
  const entryRow = actions.find((row) => row.action === 'entry');
  const offlineEntries = num(entryRow?.offline);
  const delays = await offlineSyncDelays(db, eid);
  const offline = {
    entries: totals.entries,
    offline_entries: offlineEntries,
    share: totals.entries === 0 ? null : offlineEntries / totals.entries,
    offline_exits: num(actions.find((row) => row.action === 'exit')?.offline),
    delays: delayStats(delays),
    histogram: delayHistogram(delays),
  };

  step('double admissions found at sync');
  const doubles = { late_scan_seconds: LATE_SCAN_MS / 1000, offline: 0, merged: 0, listed: [] as DoubleAdmission[] };
  const keys = await eventKeys(db, eid);
  const names = new Map(keys.map((key) => [key.api_key_id, key.scanner_name ?? key.scanner_id]));
  for (let after = 0; ;) {
    const page = await scansWithOutcome(db, eid, ['already_used', IMPORT_CONFLICT_OUTCOME], after, PAGE);
    for (const scan of page) {
      const kind = alertKindOf(scan);
      if (kind !== 'offline_double_admission' && kind !== 'merged_double_admission') continue;
      if (kind === 'offline_double_admission') doubles.offline++;
      else doubles.merged++;
      if (doubles.listed.length >= REPORT_ROWS_LISTED) continue;
      const ticket = scan.tid === null ? undefined : await findLookupRow(db, scan.tid);
      const delay = scanDelayMs(scan);
      doubles.listed.push({
        kind,
        at: scan.at,
        scanned_at: scan.scanned_at,
        tid: scan.tid,
        holder_name: ticket?.holder_name ?? null,
        gate_id: scan.gate_id,
        scanner: scan.api_key_id === null ? scan.scanner_id : (names.get(scan.api_key_id) ?? scan.scanner_id),
        delay_seconds: delay === null ? null : Math.round(delay / 1000),
        first_checked_in_at: ticket?.checked_in_at ?? null,
        first_gate_id: ticket?.checkin_gate_id ?? null,
      });
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }

  step('forged, revoked and wrong-event attempts');
  const attempts = attemptsFrom(await scanOutcomes(db, eid), await scanOutcomeTickets(db, eid));

  step('scanner uptime');
  const tracker = new UptimeTracker(gapMinutes);
  const keyIds = keys.map((key) => key.api_key_id);
  for (let after = 0; ;) {
    const page = await contactsOfKeys(db, keyIds, after, PAGE);
    for (const contact of page) tracker.add(contact);
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
  const scanners = keys
    .map((key) => tracker.uptime(key))
    .sort((a, b) => compareLabels(a.gate_id, b.gate_id) || a.name.localeCompare(b.name, 'en', { numeric: true }));

  return {
    event: { eid: event.eid, name: event.name, venue: event.venue, date: event.date, ends_at: event.ends_at },
    generated_at: new Date((options.now ?? Date.now)()).toISOString(),
    totals,
    arrivals,
    offline,
    double_admissions: doubles,
    attempts,
    scanners: { gap_minutes: gapMinutes, list: scanners },
  };
}

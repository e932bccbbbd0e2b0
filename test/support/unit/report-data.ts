/**
 * One evening's after-event report figures (issuer/services/report.ts), for the tests of its HTML and its
 * languages: 20,000 tickets, two gates, 5 % admitted offline, a forged attempt, and one scanner with a gap.
 * A test spreads it and changes what it is about.
 */
import { arrivalsFromRows, arrivalsSection, delayHistogram, type ReportData } from '../../../issuer/services/report.js';

export const SAMPLE_REPORT: ReportData = {
  event: { eid: 'E1', name: 'Gala', venue: 'Hall A', date: '2026-12-01T19:00:00.000Z', ends_at: '2026-12-02T01:00:00.000Z' },
  generated_at: '2026-12-02T08:00:00.000Z',
  totals: { issued: 20_000, checked_in: 18_500, inside: 120, entries: 19_000, exits: 18_380, annulled: 1, revoked: 12 },
  arrivals: arrivalsSection(
    arrivalsFromRows([
      { minute: '2026-12-01T19:03', gate_id: 'North', action: 'entry', n: 1_234 },
      { minute: '2026-12-01T19:08', gate_id: 'South', action: 'entry', n: 25 },
      { minute: '2026-12-01T19:09', gate_id: null, action: 'exit', n: 5 },
    ]),
  ),
  offline: {
    entries: 19_000,
    offline_entries: 950,
    share: 0.05,
    offline_exits: 1,
    delays: { count: 950, median_seconds: 95, p95_seconds: 1300, max_seconds: 7200 },
    histogram: delayHistogram([
      { seconds: 95, n: 900 },
      { seconds: 7200, n: 50 },
    ]),
  },
  double_admissions: { late_scan_seconds: 30, offline: 1, merged: 0, listed: [] },
  attempts: {
    forged: { attempts: 2, tickets: 2, by_gate: [{ gate_id: 'South', attempts: 2 }] },
    revoked: { attempts: 0, tickets: 0, by_gate: [] },
    wrong_event: { attempts: 0, tickets: 0, by_gate: [] },
  },
  scanners: {
    gap_minutes: 10,
    list: [
      {
        api_key_id: 'k1',
        scanner_id: 's1',
        name: 'North 1',
        gate_id: 'North',
        enrolled_at: '2026-12-01T18:00:00.000Z',
        revoked_at: null,
        first_seen: '2026-12-01T19:00:00.000Z',
        last_seen: '2026-12-01T21:00:00.000Z',
        requests: 1_500,
        synced_late: 0,
        gaps: [{ from: '2026-12-01T19:30:00.000Z', to: '2026-12-01T19:45:00.000Z', minutes: 15 }],
        gap_count: 1,
        gap_minutes_total: 15,
        uptime: 0.875,
      },
    ],
  },
};

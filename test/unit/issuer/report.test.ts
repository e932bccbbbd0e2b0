/** The after-event report's aggregation (issuer/services/report.ts) and HTML (report-html.ts): pure functions on rows. */
import { describe, expect, test } from 'vitest';
import {
  arrivalsFromRows,
  arrivalsSection,
  attemptsFrom,
  delayHistogram,
  delayStats,
  quantile,
  reportTotals,
  UptimeTracker,
  type ReportData,
} from '../../../issuer/services/report.js';
import { duration, esc, renderReportHtml } from '../../../issuer/services/report-html.js';
import { SAMPLE_REPORT } from '../../support/unit/report-data.js';
import type { ReportKeyRow } from '../../../issuer/store/report.js';

const key = (id: string, heartbeat: string | null = null): ReportKeyRow => ({
  api_key_id: id,
  scanner_id: `s-${id}`,
  scanner_name: `Door ${id}`,
  gate_id: 'North',
  created_at: '2026-12-01T17:00:00.000Z',
  revoked_at: null,
  heartbeat_at: heartbeat,
});

describe('sync delays', () => {
  test('nearest-rank quantiles over a (seconds, count) distribution', () => {
    const distribution = [
      { seconds: 5, n: 50 },
      { seconds: 60, n: 45 },
      { seconds: 3600, n: 5 },
    ];
    expect(quantile(distribution, 0.5)).toBe(5);
    expect(quantile(distribution, 0.51)).toBe(60);
    expect(quantile(distribution, 0.95)).toBe(60);
    expect(quantile(distribution, 0.96)).toBe(3600);
    expect(quantile([], 0.5)).toBeNull();
  });

  test('stats: counts merged per second, negative delays (a clock ahead) as 0; none → null', () => {
    expect(
      delayStats([
        { seconds: 120, n: 1 },
        { seconds: -3, n: 2 },
        { seconds: 0, n: 1 },
        { seconds: 40, n: 1 },
      ]),
    ).toEqual({ count: 5, median_seconds: 0, p95_seconds: 120, max_seconds: 120 });
    expect(delayStats([])).toBeNull();
  });

  test('histogram bins are half-open and cover everything', () => {
    const bins = delayHistogram([
      { seconds: 29, n: 1 },
      { seconds: 30, n: 2 },
      { seconds: 299, n: 3 },
      { seconds: 300, n: 4 },
      { seconds: 99_999, n: 5 },
    ]);
    expect(bins.map((bin) => [bin.label, bin.count])).toEqual([
      ['< 30 s', 1],
      ['30 s – 1 min', 2],
      ['1 – 5 min', 3],
      ['5 – 15 min', 4],
      ['15 – 60 min', 0],
      ['1 – 4 h', 0],
      ['≥ 4 h', 5],
    ]);
  });
});

describe('totals, arrivals and attempts', () => {
  test('checked in = inside + scanned out (annulled not); entries, exits and annulments from the history', () => {
    expect(
      reportTotals(
        { issued: 100, revoked: 3 },
        [
          { state: 'inside', n: 40 },
          { state: 'outside', n: 7 },
          { state: 'annulled', n: 2 },
        ],
        [
          { action: 'entry', n: 55 },
          { action: 'exit', n: 9 },
          { action: 'annul', n: 2 },
        ],
      ),
    ).toEqual({ issued: 100, checked_in: 47, inside: 40, entries: 55, exits: 9, annulled: 2, revoked: 3 });
  });

  test('per-minute GROUP BY rows become 5-minute buckets per gate; the peak minute is all gates together', () => {
    // PostgreSQL may hand counts back as strings: they are numbers here.
    const section = arrivalsSection(
      arrivalsFromRows([
        { minute: '2026-12-01T19:03', gate_id: 'South', action: 'entry', n: 4 },
        { minute: '2026-12-01T19:04', gate_id: 'North', action: 'entry', n: 3 },
        { minute: '2026-12-01T19:04', gate_id: 'South', action: 'entry', n: 2 },
        { minute: '2026-12-01T19:11', gate_id: 'North', action: 'exit', n: '6' as unknown as number },
        { minute: '2026-12-01T19:12', gate_id: null, action: 'entry', n: 1 },
      ]),
    );
    expect(section.gates).toEqual(['North', 'South', null]);
    expect(section.buckets).toEqual([
      { start: '2026-12-01T19:00:00.000Z', entries: [3, 6, 0], exits: [0, 0, 0] },
      { start: '2026-12-01T19:05:00.000Z', entries: [0, 0, 0], exits: [0, 0, 0] },
      { start: '2026-12-01T19:10:00.000Z', entries: [0, 0, 1], exits: [6, 0, 0] },
    ]);
    expect(section.peak).toEqual({
      minute: '2026-12-01T19:04:00.000Z',
      entries: 5,
      by_gate: [
        { gate_id: 'North', entries: 3 },
        { gate_id: 'South', entries: 2 },
      ],
    });
    expect(section.gate_totals).toEqual([
      { gate_id: 'North', entries: 3, exits: 6 },
      { gate_id: 'South', entries: 6, exits: 0 },
      { gate_id: null, entries: 1, exits: 0 },
    ]);
  });

  test('forged, revoked and wrong-event attempts per gate, with their distinct tickets', () => {
    const attempts = attemptsFrom(
      [
        { outcome: 'revoked', gate_id: 'South', n: 2 },
        { outcome: 'revoked', gate_id: 'North', n: 3 },
        { outcome: 'invalid_signature', gate_id: null, n: 1 },
        { outcome: 'valid', gate_id: 'North', n: 500 },
      ],
      [
        { outcome: 'revoked', tickets: 2 },
        { outcome: 'invalid_signature', tickets: 1 },
      ],
    );
    expect(attempts.revoked).toEqual({
      attempts: 5,
      tickets: 2,
      by_gate: [
        { gate_id: 'North', attempts: 3 },
        { gate_id: 'South', attempts: 2 },
      ],
    });
    expect(attempts.forged.attempts).toBe(1);
    expect(attempts.wrong_event).toEqual({ attempts: 0, tickets: 0, by_gate: [] });
  });
});

describe('scanner uptime', () => {
  const contact = (id: string, at: string, scannedAt: string | null = at) => ({ api_key_id: id, at, scanned_at: scannedAt });

  test('gaps longer than N minutes between requests; uptime is the span less the gaps; the last heartbeat extends last seen', () => {
    const tracker = new UptimeTracker(10);
    tracker.add(contact('a', '2026-12-01T19:00:00.000Z'));
    tracker.add(contact('a', '2026-12-01T19:10:00.000Z')); // exactly 10 min: not a gap
    tracker.add(contact('a', '2026-12-01T19:40:00.000Z', '2026-12-01T19:20:00.000Z')); // 30 min gap; synced 20 min late
    tracker.add(contact('a', '2026-12-01T19:50:00.000Z'));
    tracker.add(contact('b', '2026-12-01T19:05:00.000Z'));
    const a = tracker.uptime(key('a', '2026-12-01T20:00:00.000Z'));
    expect(a).toMatchObject({
      first_seen: '2026-12-01T19:00:00.000Z',
      last_seen: '2026-12-01T20:00:00.000Z',
      requests: 4,
      synced_late: 1,
      gap_count: 1,
      gap_minutes_total: 30,
      gaps: [{ from: '2026-12-01T19:10:00.000Z', to: '2026-12-01T19:40:00.000Z', minutes: 30 }],
    });
    expect(a.uptime).toBeCloseTo(0.5, 10);
    // One contact: no span, no uptime figure. Never seen: nothing.
    expect(tracker.uptime(key('b'))).toMatchObject({ requests: 1, uptime: null, gap_count: 0 });
    expect(tracker.uptime(key('c'))).toMatchObject({ first_seen: null, last_seen: null, requests: 0, uptime: null });
  });
});

describe('the HTML', () => {
  const data: ReportData = {
    ...SAMPLE_REPORT,
    event: { ...SAMPLE_REPORT.event, name: 'Gala <script>alert(1)</script>', venue: 'Hall "A" & B' },
    totals: { ...SAMPLE_REPORT.totals, annulled: 4 },
    arrivals: arrivalsSection(
      arrivalsFromRows([
        { minute: '2026-12-01T19:03', gate_id: 'North <1>', action: 'entry', n: 40 },
        { minute: '2026-12-01T19:08', gate_id: 'South', action: 'entry', n: 25 },
        { minute: '2026-12-01T19:09', gate_id: 'South', action: 'exit', n: 5 },
      ]),
    ),
    offline: { ...SAMPLE_REPORT.offline, offline_exits: 0 },
    scanners: { gap_minutes: 10, list: [] },
  };

  test('every value is escaped; four charts or an empty note; nothing is loaded from anywhere', () => {
    const html = renderReportHtml(data, { timeZone: 'Europe/Berlin', issuerName: 'Issuer <x>' });
    expect(html).not.toContain('<script');
    expect(html).toContain('Gala &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Hall &quot;A&quot; &amp; B');
    expect(html).toContain('data-gate="North &lt;1&gt;"');
    expect(html).not.toMatch(/https?:\/\//);
    for (const id of ['chart-arrivals', 'chart-offline-delay', 'chart-problems']) expect(html).toContain(`<svg id="${id}"`);
    expect(html).toContain('id="chart-uptime-empty"');
    // Times in the zone asked for: 19:03 UTC is 20:03 in Berlin.
    expect(html).toContain('Peak minute: 20:03, 40 entries');
    expect(html).toContain('5.0 % of entries were admitted offline (950 of 19,000)');
    expect(html).toContain('median 1 min 35 s, 95th percentile 21 min 40 s, longest 2 h');
    // The stacked bars: one rect per non-empty segment, the exits line.
    const arrivals = /<svg id="chart-arrivals"[\s\S]*?<\/svg>/.exec(html)![0];
    expect(arrivals.match(/<rect class="bar"/g)).toHaveLength(2);
    expect(arrivals).toMatch(/<path class="line exits" d="M[\d.,LM ]+"/);
  });

  test('esc and duration', () => {
    expect(esc(`<a href="x" onclick='y'>&\``)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;');
    expect(esc(null)).toBe('');
    expect([duration(45), duration(180), duration(200), duration(7200), duration(7260)]).toEqual([
      '45 s',
      '3 min',
      '3 min 20 s',
      '2 h',
      '2 h 1 min',
    ]);
  });
});

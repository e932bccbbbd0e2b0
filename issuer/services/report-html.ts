/**
 * The after-event report as one self-contained HTML file (docs/issuer.md "After-event report"): inline CSS,
 * charts as inline SVG, no script, no font, no image and no URL of any kind, so it opens offline and prints.
 * Pure: the report's figures in, a string out.
 *
 * The charts' geometry is d3-scale (band, linear and UTC time scales: domains, ranges, nice ticks) and
 * d3-shape (the stack of gates per bucket, the exits line); the SVG elements are written here. Both are
 * small, pure functions without a DOM, so the same code runs in Node and would in a browser.
 *
 * Every value from the database or the command line goes through `esc` (text and attributes alike).
 */
import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { line, stack } from 'd3-shape';
import type { ReportData, ScannerUptime } from './report.js';

/** Colour-blind-safe (Okabe–Ito), one per gate in order, as on the dashboard. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
const EXITS_COLOUR = '#14171a';

/** Escapes text for HTML text and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"'`]/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[char]!,
  );
}

export interface RenderOptions {
  /** IANA time zone the times are shown in. */
  timeZone: string;
  issuerName?: string;
}

const n0 = new Intl.NumberFormat('en-GB');
const count = (value: number): string => n0.format(value);
const percent = (value: number | null): string =>
  value === null ? '–' : `${new Intl.NumberFormat('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value * 100)} %`;
const gateName = (gate: string | null): string => gate ?? '(no gate)';

/** "2 h 5 min", "3 min 20 s", "45 s". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  const minutes = Math.floor(s / 60);
  return minutes % 60 === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function timeFormats(timeZone: string) {
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const seconds = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const full = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const valid = (iso: string | null): Date | null => {
    if (iso === null) return null;
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? null : date;
  };
  return {
    clock: (iso: string | null | number): string => {
      const date = typeof iso === 'number' ? new Date(iso) : valid(iso);
      return date === null ? '–' : clock.format(date);
    },
    /** With seconds, for an axis spanning a few minutes only. */
    clockSeconds: (ms: number): string => seconds.format(new Date(ms)),
    full: (iso: string | null): string => {
      const date = valid(iso);
      return date === null ? (iso ?? '–') : full.format(date);
    },
  };
}

type Formats = ReturnType<typeof timeFormats>;

/** Attribute numbers: two decimals are plenty for SVG. */
const px = (value: number): string => (Number.isFinite(value) ? String(Math.round(value * 100) / 100) : '0');

const MARGIN = { top: 16, right: 16, bottom: 44, left: 52 };

function svgOpen(id: string, width: number, height: number, title: string, description: string): string {
  return (
    `<svg id="${esc(id)}" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${esc(id)}-title ${esc(id)}-desc">` +
    `<title id="${esc(id)}-title">${esc(title)}</title><desc id="${esc(id)}-desc">${esc(description)}</desc>`
  );
}

function yAxis(y: (value: number) => number, ticks: number[], width: number): string {
  return ticks
    .map(
      (tick) =>
        `<g class="tick"><line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${px(y(tick))}" y2="${px(y(tick))}" class="grid"/>` +
        `<text x="${MARGIN.left - 6}" y="${px(y(tick) + 4)}" text-anchor="end">${esc(count(tick))}</text></g>`,
    )
    .join('');
}

/** Arrivals per bucket: a stacked bar per bucket (a segment per gate), total exits as a line. */
export function arrivalsChart(data: ReportData['arrivals'], formats: Formats): string {
  if (data.buckets.length === 0) return '<p class="empty" id="chart-arrivals-empty">No entries or exits were recorded.</p>';
  const width = Math.max(640, Math.min(1400, 80 + data.buckets.length * 18));
  const height = 320;
  const gates = data.gates.map((_, i) => String(i));
  const rows = data.buckets.map((bucket) => Object.fromEntries(gates.map((key, i) => [key, bucket.entries[i]!])));
  const series = stack<Record<string, number>>().keys(gates)(rows);
  const exits = data.buckets.map((bucket) => bucket.exits.reduce((sum, n) => sum + n, 0));
  const top = Math.max(1, ...series.flatMap((layer) => layer.map((point) => point[1])), ...exits);
  const x = scaleBand<number>()
    .domain(data.buckets.map((_, i) => i))
    .range([MARGIN.left, width - MARGIN.right])
    .paddingInner(0.15);
  const y = scaleLinear()
    .domain([0, top])
    .nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  const bars = series
    .map(
      (layer, g) =>
        `<g class="series" data-gate="${esc(gateName(data.gates[g]!))}" fill="${PALETTE[g % PALETTE.length]}">` +
        layer
          .map((point, i) =>
            point[1] > point[0]
              ? `<rect class="bar" x="${px(x(i)!)}" y="${px(y(point[1]))}" width="${px(x.bandwidth())}" height="${px(y(point[0]) - y(point[1]))}"><title>${esc(
                  `${gateName(data.gates[g]!)}, ${formats.clock(data.buckets[i]!.start)}: ${count(point[1] - point[0])} entries`,
                )}</title></rect>`
              : '',
          )
          .join('') +
        '</g>',
    )
    .join('');
  const exitsPath =
    exits.some((n) => n > 0) &&
    line<number>()
      .x((_, i) => x(i)! + x.bandwidth() / 2)
      .y((n) => y(n))(exits);
  const every = Math.max(1, Math.ceil(data.buckets.length / 12));
  const labels = data.buckets
    .map((bucket, i) =>
      i % every === 0
        ? `<text x="${px(x(i)! + x.bandwidth() / 2)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${esc(formats.clock(bucket.start))}</text>`
        : '',
    )
    .join('');
  return (
    svgOpen(
      'chart-arrivals',
      width,
      height,
      `Entries per ${data.bucket_minutes} minutes, stacked by gate${exitsPath ? ', and exits (line)' : ''}`,
      `${data.buckets.length} bars from ${formats.clock(data.buckets[0]!.start)}; the table below has every number.`,
    ) +
    `<g class="axis">${yAxis(y, y.ticks(5), width)}${labels}</g>` +
    bars +
    (exitsPath
      ? `<path class="line exits" d="${esc(exitsPath)}" fill="none" stroke="${EXITS_COLOUR}" stroke-width="2" stroke-dasharray="6 4"/>`
      : '') +
    '</svg>' +
    legend([
      ...data.gates.map((gate, g) => ({ label: `${gateName(gate)} (entries)`, colour: PALETTE[g % PALETTE.length]! })),
      ...(exitsPath ? [{ label: 'Exits, all gates', colour: EXITS_COLOUR, dashed: true }] : []),
    ])
  );
}

function legend(items: { label: string; colour: string; dashed?: boolean }[]): string {
  return (
    '<ul class="legend">' +
    items
      .map(
        (item) =>
          `<li><svg width="18" height="10" aria-hidden="true">${
            item.dashed
              ? `<line x1="0" y1="5" x2="18" y2="5" stroke="${item.colour}" stroke-width="2" stroke-dasharray="4 3"/>`
              : `<rect width="18" height="10" fill="${item.colour}"/>`
          }</svg> ${esc(item.label)}</li>`,
      )
      .join('') +
    '</ul>'
  );
}

/** How late offline scans reached the issuer: a bar per bin. */
export function delayChart(data: ReportData['offline']): string {
  if (data.delays === null) return '<p class="empty" id="chart-offline-delay-empty">No scan was admitted offline.</p>';
  const width = 640;
  const height = 260;
  const x = scaleBand<string>()
    .domain(data.histogram.map((bin) => bin.label))
    .range([MARGIN.left, width - MARGIN.right])
    .paddingInner(0.2);
  const y = scaleLinear()
    .domain([0, Math.max(1, ...data.histogram.map((bin) => bin.count))])
    .nice()
    .range([height - MARGIN.bottom, MARGIN.top]);
  const bars = data.histogram
    .map(
      (bin) =>
        (bin.count > 0
          ? `<rect class="bar" data-bin="${esc(bin.label)}" x="${px(x(bin.label)!)}" y="${px(y(bin.count))}" width="${px(x.bandwidth())}" height="${px(y(0) - y(bin.count))}" fill="${PALETTE[0]}"><title>${esc(`${bin.label}: ${count(bin.count)}`)}</title></rect>` +
            `<text class="value" x="${px(x(bin.label)! + x.bandwidth() / 2)}" y="${px(y(bin.count) - 4)}" text-anchor="middle">${esc(count(bin.count))}</text>`
          : '') +
        `<text x="${px(x(bin.label)! + x.bandwidth() / 2)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${esc(bin.label)}</text>`,
    )
    .join('');
  return (
    svgOpen(
      'chart-offline-delay',
      width,
      height,
      'Offline scans by how late they reached the issuer',
      `${count(data.delays.count)} offline scans; median ${duration(data.delays.median_seconds)}, 95th percentile ${duration(data.delays.p95_seconds)}.`,
    ) + `<g class="axis">${yAxis(y, y.ticks(4), width)}</g>${bars}</svg>`
  );
}

/** Each scanner's time in contact, first to last seen, with its gaps (no contact) in red. */
export function uptimeChart(scanners: readonly ScannerUptime[], formats: Formats): string {
  const seen = scanners.filter((s) => s.first_seen !== null && s.last_seen !== null);
  if (seen.length === 0) return '<p class="empty" id="chart-uptime-empty">No scanner sent a scan.</p>';
  const width = 900;
  const labelWidth = 200;
  const rowHeight = 28;
  const height = MARGIN.top + seen.length * rowHeight + MARGIN.bottom;
  const from = Math.min(...seen.map((s) => Date.parse(s.first_seen!)));
  const to = Math.max(...seen.map((s) => Date.parse(s.last_seen!)), from + 60_000);
  const x = scaleUtc()
    .domain([new Date(from), new Date(to)])
    .range([labelWidth, width - MARGIN.right]);
  const ticks = x.ticks(8);
  const axis = ticks
    .map(
      (tick) =>
        `<g class="tick"><line x1="${px(x(tick))}" x2="${px(x(tick))}" y1="${MARGIN.top}" y2="${height - MARGIN.bottom}" class="grid"/>` +
        `<text x="${px(x(tick))}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${esc(
          to - from < 10 * 60_000 ? formats.clockSeconds(tick.getTime()) : formats.clock(tick.getTime()),
        )}</text></g>`,
    )
    .join('');
  const rows = seen
    .map((s, i) => {
      const top = MARGIN.top + i * rowHeight + 6;
      const start = x(new Date(s.first_seen!));
      const end = Math.max(start + 2, x(new Date(s.last_seen!)));
      const gaps = s.gaps
        .map(
          (gap) =>
            `<rect class="gap" x="${px(x(new Date(gap.from)))}" y="${top}" width="${px(Math.max(2, x(new Date(gap.to)) - x(new Date(gap.from))))}" height="${rowHeight - 12}" fill="#a4161a"><title>${esc(
              `No contact ${formats.clock(gap.from)}–${formats.clock(gap.to)} (${gap.minutes} min)`,
            )}</title></rect>`,
        )
        .join('');
      return (
        `<g class="scanner" data-scanner="${esc(s.name)}"><text x="${labelWidth - 8}" y="${top + 12}" text-anchor="end">${esc(
          `${s.name} (${gateName(s.gate_id)})`,
        )}</text>` +
        `<rect class="span" x="${px(start)}" y="${top}" width="${px(end - start)}" height="${rowHeight - 12}" fill="${PALETTE[2]}"><title>${esc(
          `${s.name}: ${formats.clock(s.first_seen)}–${formats.clock(s.last_seen)}`,
        )}</title></rect>${gaps}</g>`
      );
    })
    .join('');
  return (
    svgOpen(
      'chart-uptime',
      width,
      height,
      'Scanners: in contact (green) and gaps without contact (red)',
      `${seen.length} scanners; the table below has the figures.`,
    ) +
    `<g class="axis">${axis}</g>${rows}</svg>` +
    legend([
      { label: 'In contact', colour: PALETTE[2]! },
      { label: 'Gap: no contact', colour: '#a4161a' },
    ])
  );
}

/** What went wrong at the doors, one bar each. */
export function problemsChart(data: ReportData): string {
  const items = [
    { label: 'Double admissions at sync', value: data.double_admissions.offline + data.double_admissions.merged },
    { label: 'Forged signatures', value: data.attempts.forged.attempts },
    { label: 'Revoked tickets', value: data.attempts.revoked.attempts },
    { label: 'Wrong event', value: data.attempts.wrong_event.attempts },
  ];
  const width = 640;
  const labelWidth = 210;
  const rowHeight = 34;
  const height = MARGIN.top + items.length * rowHeight + 8;
  const x = scaleLinear()
    .domain([0, Math.max(1, ...items.map((item) => item.value))])
    .range([labelWidth, width - 70]);
  return (
    svgOpen(
      'chart-problems',
      width,
      height,
      'Problems at the doors',
      items.map((item) => `${item.label}: ${count(item.value)}`).join('; '),
    ) +
    items
      .map((item, i) => {
        const top = MARGIN.top + i * rowHeight;
        return (
          `<g class="problem" data-problem="${esc(item.label)}"><text x="${labelWidth - 8}" y="${top + 16}" text-anchor="end">${esc(item.label)}</text>` +
          `<rect class="bar" x="${labelWidth}" y="${top + 2}" width="${px(Math.max(item.value > 0 ? 2 : 0, x(item.value) - labelWidth))}" height="${rowHeight - 12}" fill="${item.value > 0 ? '#a4161a' : '#d3d8de'}"/>` +
          `<text class="value" x="${px(x(item.value) + 6)}" y="${top + 16}">${esc(count(item.value))}</text></g>`
        );
      })
      .join('') +
    '</svg>'
  );
}

function table(id: string, caption: string, head: string[], rows: string[][], numeric: boolean[] = []): string {
  return (
    `<table id="${esc(id)}"><caption>${esc(caption)}</caption><thead><tr>${head
      .map((cell, i) => `<th scope="col"${numeric[i] ? ' class="num"' : ''}>${esc(cell)}</th>`)
      .join('')}</tr></thead><tbody>` +
    rows.map((row) => `<tr>${row.map((cell, i) => `<td${numeric[i] ? ' class="num"' : ''}>${esc(cell)}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>'
  );
}

const STYLE = `
:root{--ink:#14171a;--muted:#4d5660;--line:#d3d8de;--bad:#a4161a;--accent:#0b5cad;font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;color:var(--ink);background:#fff}
body{max-width:1100px;margin:2rem auto;padding:0 1.5rem;line-height:1.45}
h1{margin:0 0 .25rem;font-size:1.9rem}h2{margin:2.2rem 0 .6rem;font-size:1.35rem;border-bottom:2px solid var(--line);padding-bottom:.3rem}
.meta{color:var(--muted);margin:0 0 1.5rem}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.75rem;margin:1rem 0}
.tile{border:1px solid var(--line);border-radius:10px;padding:.7rem .9rem}.tile .label{color:var(--muted);font-size:.9rem}.tile .value{font-size:1.8rem;font-weight:700;font-variant-numeric:tabular-nums}
table{border-collapse:collapse;margin:.8rem 0 1.2rem;font-size:.92rem;width:100%}caption{text-align:left;font-weight:700;margin-bottom:.3rem}
th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}.num{text-align:right;font-variant-numeric:tabular-nums}
svg.chart{max-width:100%;height:auto;display:block;margin:.6rem 0}svg text{font-size:11px;fill:var(--ink);font-family:inherit}svg .grid{stroke:#e6e9ed}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;font-size:.9rem;margin:.2rem 0 1rem}
.empty{color:var(--muted);font-style:italic}.bad{color:var(--bad);font-weight:700}.note{color:var(--muted);font-size:.9rem}
details{margin:.5rem 0}@media print{body{margin:0}h2{break-after:avoid}svg.chart,table{break-inside:avoid}}
`;

/** The whole report. */
export function renderReportHtml(data: ReportData, options: RenderOptions): string {
  const formats = timeFormats(options.timeZone);
  const { totals, arrivals, offline, double_admissions: doubles, attempts, scanners } = data;
  const tile = (id: string, label: string, value: string) =>
    `<div class="tile" id="${esc(id)}"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div></div>`;
  const peak = arrivals.peak;
  const out: string[] = [];
  out.push(
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    // No request of any kind: the file needs nothing but itself.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="referrer" content="no-referrer"><title>${esc(`After-event report: ${data.event.name}`)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(`After-event report: ${data.event.name}`)}</h1>`,
    `<p class="meta">${esc(
      [
        data.event.venue,
        `${formats.full(data.event.date)} – ${formats.full(data.event.ends_at)}`,
        `event ${data.event.eid}`,
        options.issuerName === undefined ? null : `issuer ${options.issuerName}`,
      ]
        .filter(Boolean)
        .join(' · '),
    )}<br>${esc(`Generated ${formats.full(data.generated_at)}. Times in ${options.timeZone}.`)}</p>`,
  );

  out.push(
    '<section id="totals"><h2>Totals</h2><div class="tiles">',
    tile('total-issued', 'Issued', count(totals.issued)),
    tile('total-checked-in', 'Checked in', count(totals.checked_in)),
    tile('total-annulled', 'Annulled', count(totals.annulled)),
    tile('total-revoked', 'Revoked', count(totals.revoked)),
    tile('total-exits', 'Exits', count(totals.exits)),
    tile('total-inside', 'Inside at the end', count(totals.inside)),
    '</div>',
    `<p class="note">${esc(
      `Checked in: tickets whose check-in stands (${percent(totals.issued === 0 ? null : totals.checked_in / totals.issued)} of those issued). ` +
        `${count(totals.entries)} entries were recorded at the doors in all (re-entries included); annulled: check-ins undone by staff; ` +
        'revoked: tickets revoked by the organiser; inside at the end: checked in and not scanned out when this report was made.',
    )}</p></section>`,
  );

  out.push(
    `<section id="arrivals"><h2>${esc(`Arrivals per ${arrivals.bucket_minutes} minutes per gate`)}</h2>`,
    peak === null
      ? '<p id="peak-minute">No entries, so no peak minute.</p>'
      : `<p id="peak-minute"><strong>${esc(`Peak minute: ${formats.clock(peak.minute)}, ${count(peak.entries)} entries`)}</strong>${esc(
          ` (${peak.by_gate.map((gate) => `${gateName(gate.gate_id)} ${count(gate.entries)}`).join(', ')}).`,
        )}</p>`,
    arrivalsChart(arrivals, formats),
    arrivals.buckets.length === 0
      ? ''
      : '<details open><summary>Every number</summary>' +
          table(
            'arrivals-table',
            `Entries (and exits) per ${arrivals.bucket_minutes} minutes, from the time scanned at the door`,
            ['From', ...arrivals.gates.map((gate) => `${gateName(gate)} in`), 'All in', 'All out'],
            [
              ...arrivals.buckets.map((bucket) => [
                formats.clock(bucket.start),
                ...bucket.entries.map(count),
                count(bucket.entries.reduce((a, b) => a + b, 0)),
                count(bucket.exits.reduce((a, b) => a + b, 0)),
              ]),
              [
                'Total',
                ...arrivals.gate_totals.map((gate) => count(gate.entries)),
                count(arrivals.gate_totals.reduce((sum, gate) => sum + gate.entries, 0)),
                count(arrivals.gate_totals.reduce((sum, gate) => sum + gate.exits, 0)),
              ],
            ],
            [false, ...arrivals.gates.map(() => true), true, true],
          ) +
          '</details>',
    '</section>',
  );

  out.push(
    '<section id="offline"><h2>Admitted offline</h2>',
    `<p id="offline-share"><strong>${esc(
      `${percent(offline.share)} of entries were admitted offline (${count(offline.offline_entries)} of ${count(offline.entries)})`,
    )}</strong>${esc(offline.offline_exits > 0 ? `, and ${count(offline.offline_exits)} exits were scanned offline.` : '.')}</p>`,
    offline.delays === null
      ? ''
      : `<p id="offline-delay">${esc(
          `How late they reached the issuer (received − scanned): median ${duration(offline.delays.median_seconds)}, ` +
            `95th percentile ${duration(offline.delays.p95_seconds)}, longest ${duration(offline.delays.max_seconds)}, over ${count(offline.delays.count)} offline scans.`,
        )}</p>`,
    delayChart(offline),
    '</section>',
  );

  out.push(
    '<section id="double-admissions"><h2>Double admissions found at sync</h2>',
    `<p id="double-count"${doubles.offline + doubles.merged > 0 ? ' class="bad"' : ''}>${esc(
      `${count(doubles.offline)} possible offline double admissions, ${count(doubles.merged)} found when two copies of the issuer were merged.`,
    )}</p>`,
    `<p class="note">${esc(
      `A possible offline double admission: a scan answered "already used" that reached the issuer more than ${doubles.late_scan_seconds} s after it was scanned: ` +
        'a kiosk that was offline admitted the holder while someone had already got in on the same ticket (possible: a kiosk that held the scan, or a clock behind, looks the same).',
    )}</p>`,
    doubles.listed.length === 0
      ? ''
      : table(
          'double-table',
          doubles.offline + doubles.merged > doubles.listed.length
            ? `The first ${doubles.listed.length} of ${doubles.offline + doubles.merged}`
            : 'Each one',
          ['Scanned', 'Ticket', 'Holder', 'Gate', 'Scanner', 'Synced after', 'First admitted', 'At gate'],
          doubles.listed.map((row) => [
            formats.clock(row.scanned_at ?? row.at),
            row.tid ?? '–',
            row.holder_name ?? '–',
            gateName(row.gate_id),
            row.scanner ?? '–',
            row.kind === 'merged_double_admission' ? 'merge' : row.delay_seconds === null ? '–' : duration(row.delay_seconds),
            formats.clock(row.first_checked_in_at),
            gateName(row.first_gate_id),
          ]),
        ),
    '</section>',
  );

  const attemptRows = (
    [
      ['Forged signature', attempts.forged],
      ['Revoked ticket', attempts.revoked],
      ['Wrong event', attempts.wrong_event],
    ] as const
  ).map(([label, counts]) => [
    label,
    count(counts.attempts),
    count(counts.tickets),
    counts.by_gate.map((gate) => `${gateName(gate.gate_id)} ${count(gate.attempts)}`).join(', ') || '–',
  ]);
  out.push(
    '<section id="attempts"><h2>Forged, revoked and wrong-event attempts</h2>',
    problemsChart(data),
    table('attempts-table', 'Refused scan attempts', ['Kind', 'Attempts', 'Tickets', 'Per gate'], attemptRows, [false, true, true, false]),
    '</section>',
  );

  out.push(
    '<section id="scanners"><h2>Scanner uptime</h2>',
    `<p class="note">${esc(
      `A scanner is heard from at each scan it sends (whatever the answer) and at its last heartbeat. A gap is more than ${scanners.gap_minutes} minutes without a scan request: ` +
        'a kiosk down or offline, or simply a quiet door. Uptime is the time between first and last seen less the gaps. ' +
        '"Synced late": scans that reached the issuer more than 30 s after they were made (scanned offline).',
    )}</p>`,
    uptimeChart(scanners.list, formats),
    table(
      'scanner-table',
      'Per scanner',
      ['Scanner', 'Gate', 'First seen', 'Last seen', 'Scans', 'Synced late', 'Gaps', 'Uptime'],
      scanners.list.map((s) => [
        s.name + (s.revoked_at === null ? '' : ' (revoked)'),
        gateName(s.gate_id),
        formats.clock(s.first_seen),
        formats.clock(s.last_seen),
        count(s.requests),
        count(s.synced_late),
        s.gap_count === 0
          ? 'none'
          : `${count(s.gap_count)} (${duration(s.gap_minutes_total * 60)}): ` +
            s.gaps.map((gap) => `${formats.clock(gap.from)}–${formats.clock(gap.to)}`).join(', ') +
            (s.gap_count > s.gaps.length ? ', …' : ''),
        percent(s.uptime),
      ]),
      [false, false, false, false, true, true, false, true],
    ),
    '</section>',
    `<p class="note">${esc('Made by ticket-issuer report. This file is self-contained: it loads nothing and works offline.')}</p>`,
    '</body></html>',
  );
  return out.join('\n');
}

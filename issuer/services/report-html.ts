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
 *
 * Every word comes from the report's catalogue in the language asked for (./report-messages/: en, de, fr, es),
 * and numbers, percentages, dates and times are formatted by Intl for that language, in the --tz zone.
 * The data-* attributes (gate, bin, problem) stay language-neutral, for tests and styles.
 */
import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { line, stack } from 'd3-shape';
import type { ReportData, ScannerUptime } from './report.js';
import { fill, REPORT_CATALOGUES, REPORT_LOCALES, type PluralKey, type ReportLanguage, type TextKey } from './report-messages/index.js';

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
  /** The report's language (default English): its words, and its numbers, dates and times (Intl). */
  language?: ReportLanguage;
}

/** "2 h 5 min", "3 min 20 s", "45 s": the same in the four languages, as on the dashboard. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  const minutes = Math.floor(s / 60);
  return minutes % 60 === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The report's words, numbers, dates and times in one language and time zone. */
export function reportText(language: ReportLanguage, timeZone: string) {
  const messages = REPORT_CATALOGUES[language];
  const locale = REPORT_LOCALES[language];
  const numbers = new Intl.NumberFormat(locale);
  const oneDecimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const plurals = new Intl.PluralRules(locale);
  const clock = new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const seconds = new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const full = new Intl.DateTimeFormat(locale, {
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
  const count = (value: number): string => numbers.format(value);
  return {
    language,
    /** A text of the catalogue, its placeholders filled. */
    text: (key: TextKey, params?: Record<string, string | number>): string => fill(messages[key], params),
    /** A text that depends on `n`: the language's plural form, `{count}` the formatted number. */
    plural: (key: PluralKey, n: number, params: Record<string, string | number> = {}): string => {
      const forms = messages[key];
      return fill(plurals.select(n) === 'one' ? forms.one : forms.other, { ...params, count: count(n) });
    },
    count,
    percent: (value: number | null): string =>
      value === null ? '–' : fill(messages['number.percent'], { value: oneDecimal.format(value * 100) }),
    gateName: (gate: string | null): string => gate ?? messages['gate.none'],
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

export type ReportText = ReturnType<typeof reportText>;

/** Attribute numbers: two decimals are plenty for SVG. */
const px = (value: number): string => (Number.isFinite(value) ? String(Math.round(value * 100) / 100) : '0');

const MARGIN = { top: 16, right: 16, bottom: 44, left: 52 };

function svgOpen(id: string, width: number, height: number, title: string, description: string): string {
  return (
    `<svg id="${esc(id)}" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${esc(id)}-title ${esc(id)}-desc">` +
    `<title id="${esc(id)}-title">${esc(title)}</title><desc id="${esc(id)}-desc">${esc(description)}</desc>`
  );
}

function yAxis(y: (value: number) => number, ticks: number[], width: number, t: ReportText): string {
  return ticks
    .map(
      (tick) =>
        `<g class="tick"><line x1="${MARGIN.left}" x2="${width - MARGIN.right}" y1="${px(y(tick))}" y2="${px(y(tick))}" class="grid"/>` +
        `<text x="${MARGIN.left - 6}" y="${px(y(tick) + 4)}" text-anchor="end">${esc(t.count(tick))}</text></g>`,
    )
    .join('');
}

/** Arrivals per bucket: a stacked bar per bucket (a segment per gate), total exits as a line. */
export function arrivalsChart(data: ReportData['arrivals'], t: ReportText): string {
  if (data.buckets.length === 0) return `<p class="empty" id="chart-arrivals-empty">${esc(t.text('arrivals.empty'))}</p>`;
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
        // data-gate is the gate's own name, for tests and styles, whatever the language.
        `<g class="series" data-gate="${esc(data.gates[g] ?? '')}" fill="${PALETTE[g % PALETTE.length]}">` +
        layer
          .map((point, i) =>
            point[1] > point[0]
              ? `<rect class="bar" x="${px(x(i)!)}" y="${px(y(point[1]))}" width="${px(x.bandwidth())}" height="${px(y(point[0]) - y(point[1]))}"><title>${esc(
                  t.plural('arrivals.chart.bar', point[1] - point[0], {
                    gate: t.gateName(data.gates[g]!),
                    time: t.clock(data.buckets[i]!.start),
                  }),
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
        ? `<text x="${px(x(i)! + x.bandwidth() / 2)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${esc(t.clock(bucket.start))}</text>`
        : '',
    )
    .join('');
  return (
    svgOpen(
      'chart-arrivals',
      width,
      height,
      t.text(exitsPath ? 'arrivals.chart.title_with_exits' : 'arrivals.chart.title', { minutes: t.count(data.bucket_minutes) }),
      t.plural('arrivals.chart.description', data.buckets.length, { time: t.clock(data.buckets[0]!.start) }),
    ) +
    `<g class="axis">${yAxis(y, y.ticks(5), width, t)}${labels}</g>` +
    bars +
    (exitsPath
      ? `<path class="line exits" d="${esc(exitsPath)}" fill="none" stroke="${EXITS_COLOUR}" stroke-width="2" stroke-dasharray="6 4"/>`
      : '') +
    '</svg>' +
    legend([
      ...data.gates.map((gate, g) => ({
        label: t.text('arrivals.legend.entries', { gate: t.gateName(gate) }),
        colour: PALETTE[g % PALETTE.length]!,
      })),
      ...(exitsPath ? [{ label: t.text('arrivals.legend.exits'), colour: EXITS_COLOUR, dashed: true }] : []),
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

/**
 * How late offline scans reached the issuer: a bar per bin. The bins' labels ("30 s – 1 min") are the same in
 * every language: s, min and h, as the dashboard writes durations in all four.
 */
export function delayChart(data: ReportData['offline'], t: ReportText): string {
  if (data.delays === null) return `<p class="empty" id="chart-offline-delay-empty">${esc(t.text('offline.chart.empty'))}</p>`;
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
          ? `<rect class="bar" data-bin="${esc(bin.label)}" x="${px(x(bin.label)!)}" y="${px(y(bin.count))}" width="${px(x.bandwidth())}" height="${px(y(0) - y(bin.count))}" fill="${PALETTE[0]}"><title>${esc(
              t.text('label_value', { label: bin.label, value: t.count(bin.count) }),
            )}</title></rect>` +
            `<text class="value" x="${px(x(bin.label)! + x.bandwidth() / 2)}" y="${px(y(bin.count) - 4)}" text-anchor="middle">${esc(t.count(bin.count))}</text>`
          : '') +
        `<text x="${px(x(bin.label)! + x.bandwidth() / 2)}" y="${height - MARGIN.bottom + 16}" text-anchor="middle">${esc(bin.label)}</text>`,
    )
    .join('');
  return (
    svgOpen(
      'chart-offline-delay',
      width,
      height,
      t.text('offline.chart.title'),
      t.plural('offline.chart.description', data.delays.count, {
        median: duration(data.delays.median_seconds),
        p95: duration(data.delays.p95_seconds),
      }),
    ) + `<g class="axis">${yAxis(y, y.ticks(4), width, t)}</g>${bars}</svg>`
  );
}

/** Each scanner's time in contact, first to last seen, with its gaps (no contact) in red. */
export function uptimeChart(scanners: readonly ScannerUptime[], t: ReportText): string {
  const seen = scanners.filter((s) => s.first_seen !== null && s.last_seen !== null);
  if (seen.length === 0) return `<p class="empty" id="chart-uptime-empty">${esc(t.text('scanners.chart.empty'))}</p>`;
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
          to - from < 10 * 60_000 ? t.clockSeconds(tick.getTime()) : t.clock(tick.getTime()),
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
              t.text('scanners.chart.gap', { from: t.clock(gap.from), to: t.clock(gap.to), minutes: t.count(gap.minutes) }),
            )}</title></rect>`,
        )
        .join('');
      return (
        `<g class="scanner" data-scanner="${esc(s.name)}"><text x="${labelWidth - 8}" y="${top + 12}" text-anchor="end">${esc(
          `${s.name} (${t.gateName(s.gate_id)})`,
        )}</text>` +
        `<rect class="span" x="${px(start)}" y="${top}" width="${px(end - start)}" height="${rowHeight - 12}" fill="${PALETTE[2]}"><title>${esc(
          `${s.name}: ${t.clock(s.first_seen)}–${t.clock(s.last_seen)}`,
        )}</title></rect>${gaps}</g>`
      );
    })
    .join('');
  return (
    svgOpen('chart-uptime', width, height, t.text('scanners.chart.title'), t.plural('scanners.chart.description', seen.length)) +
    `<g class="axis">${axis}</g>${rows}</svg>` +
    legend([
      { label: t.text('scanners.legend.contact'), colour: PALETTE[2]! },
      { label: t.text('scanners.legend.gap'), colour: '#a4161a' },
    ])
  );
}

/** What went wrong at the doors, one bar each; data-problem names the bar whatever the language. */
export function problemsChart(data: ReportData, t: ReportText): string {
  const items = [
    {
      id: 'double-admissions',
      label: t.text('attempts.chart.doubles'),
      value: data.double_admissions.offline + data.double_admissions.merged,
    },
    { id: 'forged', label: t.text('attempts.chart.forged'), value: data.attempts.forged.attempts },
    { id: 'revoked', label: t.text('attempts.chart.revoked'), value: data.attempts.revoked.attempts },
    { id: 'wrong-event', label: t.text('attempts.chart.wrong_event'), value: data.attempts.wrong_event.attempts },
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
      t.text('attempts.chart.title'),
      items.map((item) => t.text('label_value', { label: item.label, value: t.count(item.value) })).join(t.text('list.separator')),
    ) +
    items
      .map((item, i) => {
        const top = MARGIN.top + i * rowHeight;
        return (
          `<g class="problem" data-problem="${item.id}"><text x="${labelWidth - 8}" y="${top + 16}" text-anchor="end">${esc(item.label)}</text>` +
          `<rect class="bar" x="${labelWidth}" y="${top + 2}" width="${px(Math.max(item.value > 0 ? 2 : 0, x(item.value) - labelWidth))}" height="${rowHeight - 12}" fill="${item.value > 0 ? '#a4161a' : '#d3d8de'}"/>` +
          `<text class="value" x="${px(x(item.value) + 6)}" y="${top + 16}">${esc(t.count(item.value))}</text></g>`
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

/** The whole report, in options.language (default English). */
export function renderReportHtml(data: ReportData, options: RenderOptions): string {
  const language = options.language ?? 'en';
  const t = reportText(language, options.timeZone);
  const { totals, arrivals, offline, double_admissions: doubles, attempts, scanners } = data;
  const tile = (id: string, label: string, value: string) =>
    `<div class="tile" id="${esc(id)}"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div></div>`;
  const peak = arrivals.peak;
  const bucketMinutes = t.count(arrivals.bucket_minutes);
  const title = t.text('report.title', { event: data.event.name });
  const out: string[] = [];
  out.push(
    '<!doctype html>',
    `<html lang="${language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    // No request of any kind: the file needs nothing but itself.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(title)}</h1>`,
    `<p class="meta">${esc(
      [
        data.event.venue,
        `${t.full(data.event.date)} – ${t.full(data.event.ends_at)}`,
        t.text('meta.event', { eid: data.event.eid }),
        options.issuerName === undefined ? null : t.text('meta.issuer', { name: options.issuerName }),
      ]
        .filter(Boolean)
        .join(' · '),
    )}<br>${esc(t.text('meta.generated', { time: t.full(data.generated_at), zone: options.timeZone }))}</p>`,
  );

  out.push(
    `<section id="totals"><h2>${esc(t.text('totals.title'))}</h2><div class="tiles">`,
    tile('total-issued', t.text('totals.issued'), t.count(totals.issued)),
    tile('total-checked-in', t.text('totals.checked_in'), t.count(totals.checked_in)),
    tile('total-annulled', t.text('totals.annulled'), t.count(totals.annulled)),
    tile('total-revoked', t.text('totals.revoked'), t.count(totals.revoked)),
    tile('total-exits', t.text('totals.exits'), t.count(totals.exits)),
    tile('total-inside', t.text('totals.inside'), t.count(totals.inside)),
    '</div>',
    `<p class="note">${esc(
      t.plural('totals.note', totals.entries, { percent: t.percent(totals.issued === 0 ? null : totals.checked_in / totals.issued) }),
    )}</p></section>`,
  );

  out.push(
    `<section id="arrivals"><h2>${esc(t.text('arrivals.title', { minutes: bucketMinutes }))}</h2>`,
    peak === null
      ? `<p id="peak-minute">${esc(t.text('arrivals.no_peak'))}</p>`
      : `<p id="peak-minute"><strong>${esc(t.plural('arrivals.peak', peak.entries, { time: t.clock(peak.minute) }))}</strong>${esc(
          t.text('arrivals.peak_gates', {
            gates: peak.by_gate.map((gate) => `${t.gateName(gate.gate_id)} ${t.count(gate.entries)}`).join(', '),
          }),
        )}</p>`,
    arrivalsChart(arrivals, t),
    arrivals.buckets.length === 0
      ? ''
      : `<details open><summary>${esc(t.text('arrivals.details'))}</summary>` +
          table(
            'arrivals-table',
            t.text('arrivals.table.caption', { minutes: bucketMinutes }),
            [
              t.text('arrivals.table.from'),
              ...arrivals.gates.map((gate) => t.text('arrivals.table.gate_in', { gate: t.gateName(gate) })),
              t.text('arrivals.table.all_in'),
              t.text('arrivals.table.all_out'),
            ],
            [
              ...arrivals.buckets.map((bucket) => [
                t.clock(bucket.start),
                ...bucket.entries.map(t.count),
                t.count(bucket.entries.reduce((a, b) => a + b, 0)),
                t.count(bucket.exits.reduce((a, b) => a + b, 0)),
              ]),
              [
                t.text('arrivals.table.total'),
                ...arrivals.gate_totals.map((gate) => t.count(gate.entries)),
                t.count(arrivals.gate_totals.reduce((sum, gate) => sum + gate.entries, 0)),
                t.count(arrivals.gate_totals.reduce((sum, gate) => sum + gate.exits, 0)),
              ],
            ],
            [false, ...arrivals.gates.map(() => true), true, true],
          ) +
          '</details>',
    '</section>',
  );

  out.push(
    `<section id="offline"><h2>${esc(t.text('offline.title'))}</h2>`,
    `<p id="offline-share"><strong>${esc(
      t.text('offline.share', {
        percent: t.percent(offline.share),
        offline: t.count(offline.offline_entries),
        entries: t.count(offline.entries),
      }),
    )}</strong>${esc(offline.offline_exits > 0 ? t.plural('offline.exits', offline.offline_exits) : t.text('offline.no_exits'))}</p>`,
    offline.delays === null
      ? ''
      : `<p id="offline-delay">${esc(
          t.plural('offline.delay', offline.delays.count, {
            median: duration(offline.delays.median_seconds),
            p95: duration(offline.delays.p95_seconds),
            max: duration(offline.delays.max_seconds),
          }),
        )}</p>`,
    delayChart(offline, t),
    '</section>',
  );

  out.push(
    `<section id="double-admissions"><h2>${esc(t.text('doubles.title'))}</h2>`,
    `<p id="double-count"${doubles.offline + doubles.merged > 0 ? ' class="bad"' : ''}>${esc(
      t.text('doubles.summary', {
        offline: t.plural('doubles.offline', doubles.offline),
        merged: t.plural('doubles.merged', doubles.merged),
      }),
    )}</p>`,
    `<p class="note">${esc(t.text('doubles.note', { seconds: t.count(doubles.late_scan_seconds) }))}</p>`,
    doubles.listed.length === 0
      ? ''
      : table(
          'double-table',
          doubles.offline + doubles.merged > doubles.listed.length
            ? t.text('doubles.table.caption_first', {
                listed: t.count(doubles.listed.length),
                total: t.count(doubles.offline + doubles.merged),
              })
            : t.text('doubles.table.caption_all'),
          [
            t.text('doubles.table.scanned'),
            t.text('doubles.table.ticket'),
            t.text('doubles.table.holder'),
            t.text('doubles.table.gate'),
            t.text('doubles.table.scanner'),
            t.text('doubles.table.synced_after'),
            t.text('doubles.table.first_admitted'),
            t.text('doubles.table.first_gate'),
          ],
          doubles.listed.map((row) => [
            t.clock(row.scanned_at ?? row.at),
            row.tid ?? '–',
            row.holder_name ?? '–',
            t.gateName(row.gate_id),
            row.scanner ?? '–',
            row.kind === 'merged_double_admission'
              ? t.text('doubles.table.merge')
              : row.delay_seconds === null
                ? '–'
                : duration(row.delay_seconds),
            t.clock(row.first_checked_in_at),
            t.gateName(row.first_gate_id),
          ]),
        ),
    '</section>',
  );

  const attemptRows = (
    [
      [t.text('attempts.forged'), attempts.forged],
      [t.text('attempts.revoked'), attempts.revoked],
      [t.text('attempts.wrong_event'), attempts.wrong_event],
    ] as const
  ).map(([label, counts]) => [
    label,
    t.count(counts.attempts),
    t.count(counts.tickets),
    counts.by_gate.map((gate) => `${t.gateName(gate.gate_id)} ${t.count(gate.attempts)}`).join(', ') || '–',
  ]);
  out.push(
    `<section id="attempts"><h2>${esc(t.text('attempts.title'))}</h2>`,
    problemsChart(data, t),
    table(
      'attempts-table',
      t.text('attempts.table.caption'),
      [
        t.text('attempts.table.kind'),
        t.text('attempts.table.attempts'),
        t.text('attempts.table.tickets'),
        t.text('attempts.table.per_gate'),
      ],
      attemptRows,
      [false, true, true, false],
    ),
    '</section>',
  );

  out.push(
    `<section id="scanners"><h2>${esc(t.text('scanners.title'))}</h2>`,
    `<p class="note">${esc(
      t.text('scanners.note', { minutes: t.count(scanners.gap_minutes), seconds: t.count(doubles.late_scan_seconds) }),
    )}</p>`,
    uptimeChart(scanners.list, t),
    table(
      'scanner-table',
      t.text('scanners.table.caption'),
      [
        t.text('scanners.table.scanner'),
        t.text('scanners.table.gate'),
        t.text('scanners.table.first_seen'),
        t.text('scanners.table.last_seen'),
        t.text('scanners.table.scans'),
        t.text('scanners.table.synced_late'),
        t.text('scanners.table.gaps'),
        t.text('scanners.table.uptime'),
      ],
      scanners.list.map((s) => [
        s.name + (s.revoked_at === null ? '' : t.text('scanners.revoked')),
        t.gateName(s.gate_id),
        t.clock(s.first_seen),
        t.clock(s.last_seen),
        t.count(s.requests),
        t.count(s.synced_late),
        s.gap_count === 0
          ? t.text('scanners.no_gaps')
          : `${t.count(s.gap_count)} (${duration(s.gap_minutes_total * 60)}): ` +
            s.gaps.map((gap) => `${t.clock(gap.from)}–${t.clock(gap.to)}`).join(', ') +
            (s.gap_count > s.gaps.length ? ', …' : ''),
        t.percent(s.uptime),
      ]),
      [false, false, false, false, true, true, false, true],
    ),
    '</section>',
    `<p class="note">${esc(t.text('footer'))}</p>`,
    '</body></html>',
  );
  return out.join('\n');
}

/**
 * The live part of the page, redrawn from each overview (every ~2 s): the big
 * figures, alerts, per-gate and per-type counts, scans per minute and the
 * scanners. Status is always written in words; colour only repeats it.
 */
import type { AlertView, EventOverview, ScannerView } from '../issuer/dashboard-api.js';
import { fill, h } from './dom.js';
import {
  ALERT_KINDS,
  alertLabel,
  describeAlert,
  formatAge,
  formatClock,
  formatCount,
  formatPercent,
  labelOrNone,
  scannerLabel,
  scannerStateText,
} from './format.js';
import { t, tn } from './messages/format.js';

function tile(id: string, label: string, value: string, detail: string, extra?: Node): HTMLElement {
  return h(
    'div',
    { class: 'tile', id },
    h('div', { class: 'tile-label' }, label),
    h('div', { class: 'tile-value', 'data-value': value }, value),
    h('div', { class: 'tile-detail' }, detail),
    extra,
  );
}

function bar(fraction: number, label: string): HTMLElement {
  const inner = h('div', { class: 'bar-fill' });
  // CSSOM, not a style attribute: the CSP allows no inline styles.
  inner.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  return h('div', { class: 'bar', role: 'img', 'aria-label': label }, inner);
}

export function renderTiles(root: HTMLElement, overview: EventOverview, nowMs: number): void {
  const { totals, scans, scanners, alerts } = overview;
  const active = scanners.filter((scanner) => !scanner.revoked && Date.parse(scanner.expires_at) > nowMs);
  const online = active.filter((scanner) => scanner.online).length;
  const alertTotal = Object.values(alerts.counts).reduce((sum, n) => sum + n, 0);
  const recentScans = scans.per_minute.reduce((sum, m) => sum + m.scans, 0);
  fill(
    root,
    tile(
      'tile-checked-in',
      t('tile.checked_in'),
      formatCount(totals.checked_in),
      tn('tile.checked_in.detail', totals.issued, {
        count: formatCount(totals.issued),
        percent: formatPercent(totals.checked_in, totals.issued),
      }) + (totals.revoked > 0 ? tn('tile.checked_in.revoked', totals.revoked, { count: formatCount(totals.revoked) }) : ''),
      bar(
        totals.issued === 0 ? 0 : totals.checked_in / totals.issued,
        t('tile.checked_in.bar', { percent: formatPercent(totals.checked_in, totals.issued) }),
      ),
    ),
    tile(
      'tile-rate',
      t('tile.rate'),
      formatCount(scans.last_minute),
      tn('tile.rate.detail', recentScans, { count: formatCount(recentScans), minutes: scans.per_minute.length }),
    ),
    tile(
      'tile-scanners',
      t('tile.scanners'),
      t('tile.scanners.value', { online: formatCount(online), total: formatCount(active.length) }),
      active.length === online
        ? active.length === 0
          ? t('tile.scanners.none')
          : t('tile.scanners.all')
        : tn('tile.scanners.some', active.length - online, { count: formatCount(active.length - online) }),
    ),
    tile(
      'tile-alerts',
      t('tile.alerts'),
      formatCount(alertTotal),
      alertTotal === 0 ? t('tile.alerts.none') : t('tile.alerts.some'),
      undefined,
    ),
  );
  root.querySelector('#tile-alerts')?.classList.toggle('has-alerts', alertTotal > 0);
}

function alertItem(alert: AlertView): HTMLElement {
  const label = alertLabel(alert.kind);
  return h(
    'li',
    { class: `alert alert-${alert.kind}`, 'data-kind': alert.kind, 'data-alert-id': alert.id },
    h('span', { class: 'alert-tag' }, h('span', { 'aria-hidden': 'true' }, `${label.symbol} `), label.tag),
    h(
      'div',
      { class: 'alert-body' },
      h('strong', {}, label.title),
      h('p', {}, describeAlert(alert)),
      h('span', { class: 'alert-time' }, t('alerts.received', { time: formatClock(alert.at) })),
    ),
  );
}

export function renderAlerts(root: HTMLElement, overview: EventOverview): void {
  const { counts, recent } = overview.alerts;
  const summary = h(
    'ul',
    { class: 'alert-counts' },
    ...ALERT_KINDS.map((kind) =>
      h(
        'li',
        { 'data-kind': kind, class: counts[kind] > 0 ? 'nonzero' : '' },
        h('span', { class: 'count' }, formatCount(counts[kind])),
        ` ${alertLabel(kind).counted}`,
      ),
    ),
  );
  fill(
    root,
    h('h2', {}, t('alerts.title')),
    summary,
    recent.length === 0
      ? h('p', { class: 'empty' }, t('alerts.none'))
      : h('ol', { class: 'alert-list', id: 'alert-list' }, ...recent.map(alertItem)),
  );
}

function countTable(
  caption: string,
  columns: string[],
  rows: { label: string; cells: string[]; fraction: number | null }[],
  empty: string,
): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'table',
    { class: 'counts' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ...columns.map((column, i) => h('th', { scope: 'col', class: i === 0 ? '' : 'num' }, column)))),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, row.label),
          ...row.cells.map((cell) => h('td', { class: 'num' }, cell)),
          row.fraction === null ? null : h('td', { class: 'bar-cell' }, bar(row.fraction, row.cells.at(-1) ?? '')),
        ),
      ),
    ),
  );
}

export function renderGates(root: HTMLElement, overview: EventOverview): void {
  const total = overview.totals.checked_in;
  fill(
    root,
    h('h2', {}, t('gates.title')),
    countTable(
      t('gates.caption'),
      [t('gates.column.gate'), t('gates.column.checked_in'), t('gates.column.share')],
      overview.by_gate.map((gate) => ({
        label: labelOrNone(gate.gate_id, t('gates.no_gate')),
        cells: [formatCount(gate.checked_in), formatPercent(gate.checked_in, total)],
        fraction: total === 0 ? 0 : gate.checked_in / total,
      })),
      t('gates.none'),
    ),
  );
}

export function renderTypes(root: HTMLElement, overview: EventOverview): void {
  fill(
    root,
    h('h2', {}, t('types.title')),
    countTable(
      t('types.caption'),
      [t('types.column.type'), t('types.column.checked_in'), t('types.column.issued'), t('types.column.done')],
      overview.by_type.map((type) => ({
        label: labelOrNone(type.ticket_type, t('types.no_type')),
        cells: [formatCount(type.checked_in), formatCount(type.issued), formatPercent(type.checked_in, type.issued)],
        fraction: type.issued === 0 ? 0 : type.checked_in / type.issued,
      })),
      t('types.none'),
    ),
  );
}

export function renderRate(root: HTMLElement, overview: EventOverview): void {
  const minutes = overview.scans.per_minute;
  const peak = Math.max(1, ...minutes.map((minute) => minute.scans));
  fill(
    root,
    h('h2', {}, t('rate.title')),
    h(
      'ol',
      { class: 'chart', 'aria-label': tn('rate.chart', minutes.length) },
      ...minutes.map((minute, i) => {
        const column = h('div', { class: 'chart-bar' });
        column.style.height = `${(minute.scans / peak) * 100}%`;
        const current = i === minutes.length - 1;
        return h(
          'li',
          {
            class: current ? 'current' : '',
            title: tn('rate.minute', minute.scans, { time: formatClock(minute.minute).slice(0, 5), count: formatCount(minute.scans) }),
          },
          h('span', { class: 'chart-value' }, formatCount(minute.scans)),
          h('div', { class: 'chart-track' }, column),
          h('span', { class: 'chart-label' }, current ? t('rate.now') : formatClock(minute.minute).slice(0, 5)),
        );
      }),
    ),
  );
}

/**
 * The scanners table, updated in place row by row (keyed by API key id): the
 * Revoke buttons stay the same elements between refreshes, so a click is
 * never lost to a redraw.
 */
export class ScannerTable {
  private readonly body = h('tbody', {});
  private readonly rows = new Map<string, { row: HTMLTableRowElement; cells: HTMLTableCellElement[]; button: HTMLButtonElement }>();
  /** The newest data of each row, for its Revoke button. */
  private readonly latest = new Map<string, ScannerView>();
  readonly element: HTMLElement;
  private readonly emptyNote = h('p', { class: 'empty' }, t('scanners.none'));
  private readonly table: HTMLTableElement;

  constructor(private readonly onRevoke: (scanner: ScannerView) => void) {
    this.table = h(
      'table',
      { class: 'scanners', id: 'scanner-table' },
      h('caption', { class: 'visually-hidden' }, t('scanners.title')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            t('scanners.column.scanner'),
            t('scanners.column.gate'),
            t('scanners.column.status'),
            t('scanners.column.last_contact'),
            t('scanners.column.scans'),
            '',
          ].map((column, i) => h('th', { scope: 'col', class: i === 4 ? 'num' : '' }, column)),
        ),
      ),
      this.body,
    );
    this.element = h('div', {}, h('h2', {}, t('scanners.title')), this.table, this.emptyNote);
  }

  update(scanners: ScannerView[], nowMs: number): void {
    const seen = new Set<string>();
    for (const scanner of scanners) {
      seen.add(scanner.api_key_id);
      let entry = this.rows.get(scanner.api_key_id);
      if (entry === undefined) {
        const cells = Array.from({ length: 5 }, () => h('td', {}));
        cells[4]!.className = 'num';
        const button = h('button', { type: 'button', class: 'danger small' }, t('scanners.revoke'));
        const current = scanner;
        button.addEventListener('click', () => this.onRevoke(this.latest.get(current.api_key_id) ?? current));
        const row = h('tr', { 'data-api-key-id': scanner.api_key_id }, ...cells, h('td', {}, button));
        entry = { row, cells, button };
        this.rows.set(scanner.api_key_id, entry);
      }
      this.latest.set(scanner.api_key_id, scanner);
      const state = scannerStateText(scanner, nowMs);
      const [name, gate, status, contact, count] = entry.cells as [
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
      ];
      setText(name, scannerLabel(scanner));
      name.title = [scanner.scanner_platform, t('scanners.key', { id: scanner.api_key_id })].filter(Boolean).join(' · ');
      setText(gate, labelOrNone(scanner.gate_id, t('scanners.all_gates')));
      setText(status, `${scanner.online ? '●' : '○'} ${state}`);
      status.className = `state ${scanner.revoked ? 'revoked' : scanner.online ? 'online' : 'offline'}`;
      setText(contact, `${formatAge(nowMs - Date.parse(scanner.last_contact_at))} (${formatClock(scanner.last_contact_at)})`);
      setText(count, formatCount(scanner.scans));
      entry.button.hidden = scanner.revoked;
      entry.button.setAttribute('aria-label', t('scanners.revoke_label', { name: scannerLabel(scanner) }));
    }
    for (const [key, entry] of this.rows) {
      if (!seen.has(key)) {
        entry.row.remove();
        this.rows.delete(key);
        this.latest.delete(key);
      }
    }
    // In the server's order, moving rows only when it changed.
    scanners.forEach((scanner, index) => {
      const row = this.rows.get(scanner.api_key_id)!.row;
      if (this.body.children[index] !== row) this.body.insertBefore(row, this.body.children[index] ?? null);
    });
    this.table.hidden = scanners.length === 0;
    this.emptyNote.hidden = scanners.length > 0;
  }
}

function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

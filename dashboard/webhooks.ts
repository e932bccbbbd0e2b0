/**
 * The webhook endpoints' health on the dashboard (docs/issuer.md "Webhooks"): where each sends, for which events,
 * whether it is working (in words and a colour that only repeats them), how many messages were delivered, wait or
 * are dead, and the last failure. Read only: endpoints are added and changed with `ticket-issuer webhook`. Asked
 * for after each overview, one request at a time, rows updated in place (keyed by endpoint id).
 */
import type { WebhookEndpointView } from '../issuer/dashboard-api.js';
import type { ActionContext } from './actions.js';
import { ApiProblem } from './api.js';
import { h } from './dom.js';
import { formatDateTime } from './format.js';
import { t } from './messages/format.js';

export type WebhookState = 'ok' | 'failing' | 'disabled';

/** Disabled, failing (a dead delivery, or a failure not mended since), or working. Pure. */
export function webhookState(endpoint: Pick<WebhookEndpointView, 'disabled_at' | 'dead' | 'last_error'>): WebhookState {
  if (endpoint.disabled_at !== null) return 'disabled';
  return endpoint.dead > 0 || endpoint.last_error !== null ? 'failing' : 'ok';
}

const STATE_CLASS: Record<WebhookState, string> = { ok: 'online', failing: 'revoked', disabled: 'offline' };
const COLUMNS = 8;

export class WebhookTable {
  private readonly body = h('tbody', {});
  private readonly rows = new Map<string, { row: HTMLTableRowElement; cells: HTMLTableCellElement[] }>();
  readonly element: HTMLElement;
  private readonly emptyNote = h('p', { class: 'empty', id: 'webhooks-none' }, t('webhooks.none'));
  private readonly problem = h('p', { class: 'message', role: 'alert', id: 'webhooks-problem' });
  private readonly table: HTMLTableElement;
  private inFlight = false;

  constructor(private readonly context: ActionContext) {
    this.table = h(
      'table',
      { class: 'scanners', id: 'webhook-table' },
      h('caption', { class: 'visually-hidden' }, t('webhooks.title')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            t('webhooks.column.url'),
            t('webhooks.column.events'),
            t('webhooks.column.status'),
            t('webhooks.column.delivered'),
            t('webhooks.column.waiting'),
            t('webhooks.column.dead'),
            t('webhooks.column.last_delivered'),
            t('webhooks.column.last_failure'),
          ].map((column) => h('th', { scope: 'col' }, column)),
        ),
      ),
      this.body,
    );
    this.table.hidden = true;
    this.emptyNote.hidden = true;
    this.element = h(
      'section',
      { class: 'panel', id: 'webhooks' },
      h('h2', {}, t('webhooks.title')),
      this.table,
      this.emptyNote,
      this.problem,
    );
  }

  refresh(): void {
    if (this.inFlight) return;
    this.inFlight = true;
    this.context
      .api()
      .webhooks()
      .then(({ endpoints }) => {
        this.problem.textContent = '';
        this.update(endpoints);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
        this.problem.textContent = t('webhooks.not_loaded', { problem: error instanceof ApiProblem ? error.message : t('action.failed') });
      })
      .finally(() => {
        this.inFlight = false;
      });
  }

  update(endpoints: WebhookEndpointView[]): void {
    const seen = new Set<string>();
    endpoints.forEach((endpoint, index) => {
      seen.add(endpoint.endpoint_id);
      let entry = this.rows.get(endpoint.endpoint_id);
      if (entry === undefined) {
        const cells = Array.from({ length: COLUMNS }, () => h('td', {}));
        entry = { row: h('tr', { 'data-endpoint': endpoint.endpoint_id }, ...cells), cells };
        this.rows.set(endpoint.endpoint_id, entry);
      }
      const state = webhookState(endpoint);
      const values = [
        endpoint.url,
        endpoint.events === '*' ? t('webhooks.events.all') : endpoint.events.split(' ').join(', '),
        state === 'disabled' ? t('webhooks.state.disabled', { time: formatDateTime(endpoint.disabled_at!) }) : t(`webhooks.state.${state}`),
        String(endpoint.delivered),
        String(endpoint.pending),
        String(endpoint.dead),
        endpoint.last_delivered_at === null ? '–' : formatDateTime(endpoint.last_delivered_at),
        endpoint.last_error ?? '–',
      ];
      values.forEach((value, column) => {
        const cell = entry!.cells[column]!;
        if (cell.textContent !== value) cell.textContent = value;
      });
      entry.cells[2]!.className = `state ${STATE_CLASS[state]}`;
      entry.row.dataset.state = state;
      if (this.body.children[index] !== entry.row) this.body.insertBefore(entry.row, this.body.children[index] ?? null);
    });
    for (const [key, entry] of this.rows) {
      if (!seen.has(key)) {
        entry.row.remove();
        this.rows.delete(key);
      }
    }
    this.table.hidden = endpoints.length === 0;
    this.emptyNote.hidden = endpoints.length > 0;
  }
}

/**
 * Handouts and party tickets on the dashboard (docs/issuer.md "Handouts", "Admin dashboard"): the event's counts
 * per item (given of due, and refused), refreshed with the other panels as `handouts counts` prints them; a ticket
 * type's items, set as `event ticket-type set --handout` sets them (one item a line, "2 drink voucher"). The lookup
 * card's lines: handout-facts.ts.
 */
import type { HandoutCounts, TicketTypeRules } from '../issuer/dashboard-api.js';
import type { ActionContext } from './actions.js';
import { fill, h } from './dom.js';
import { EventPanelRequest } from './event-panel-request.js';
import { formatCount } from './format.js';
import { t } from './messages/format.js';

/** The per-item counts, as a table with the words of each column (never a bar or a colour alone). */
export class HandoutCountsPanel {
  readonly element: HTMLElement;
  private readonly body = h('div', { id: 'handout-counts-body' });
  private readonly problem = h('p', { class: 'message', role: 'alert', id: 'handout-counts-problem' });
  private drawn = '';
  private readonly request: EventPanelRequest<HandoutCounts>;

  constructor(context: ActionContext) {
    this.request = new EventPanelRequest(
      context,
      (api, eid) => api.handoutCounts(eid),
      (counts) => {
        this.problem.hidden = true;
        this.draw(counts);
      },
      (problem) => {
        this.problem.textContent = t('handouts.not_loaded', { problem });
        this.problem.hidden = false;
      },
    );
    this.problem.hidden = true;
    this.element = h(
      'section',
      { class: 'panel', id: 'handout-counts' },
      h('h2', {}, t('handouts.title')),
      h('p', { class: 'muted' }, t('handouts.lead')),
      this.problem,
      this.body,
    );
  }

  /** With each overview: asks again, one request at a time, and draws only what changed. */
  refresh(): void {
    this.request.refresh();
  }

  private draw(counts: HandoutCounts): void {
    const json = JSON.stringify(counts);
    if (json === this.drawn) return;
    this.drawn = json;
    if (counts.items.length === 0) {
      fill(this.body, h('p', { class: 'empty' }, t('handouts.none')));
      return;
    }
    const cell = (value: number): HTMLElement => h('td', { class: 'num' }, formatCount(value));
    fill(
      this.body,
      h(
        'table',
        { class: 'counts', id: 'handout-counts-table' },
        h('caption', { class: 'visually-hidden' }, t('handouts.title')),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t('handouts.col.item')),
            h('th', { scope: 'col', class: 'num' }, t('handouts.col.given')),
            h('th', { scope: 'col', class: 'num' }, t('handouts.col.due')),
            h('th', { scope: 'col', class: 'num' }, t('handouts.col.refused')),
          ),
        ),
        h(
          'tbody',
          {},
          ...counts.items.map((row) =>
            h(
              'tr',
              { 'data-item': row.item },
              h('th', { scope: 'row' }, h('bdi', {}, row.item)),
              cell(row.given),
              cell(row.due),
              cell(row.refused),
            ),
          ),
        ),
      ),
    );
  }
}

/** A type's items as the form shows them: one a line, "2 drink voucher" (the CLI's `--handout` form). */
export const handoutLines = (items: TicketTypeRules['handouts'][number]['items']): string =>
  items.map((entry) => (entry.count === 1 ? entry.item : `${entry.count} ${entry.item}`)).join('\n');

/** The type's handout form, under its attention form in the ticket types panel. */
export function typeHandoutsForm(
  name: string,
  slug: string,
  items: TicketTypeRules['handouts'][number]['items'],
  onSave: (name: string, lines: string[]) => void,
): HTMLElement {
  const list = h('textarea', { id: `type-handouts-${slug}`, rows: 3, maxlength: 1100, autocomplete: 'off', 'data-field': 'handouts' });
  list.value = handoutLines(items);
  const form = h(
    'form',
    { class: 'attention-form', 'data-action': 'type-handouts' },
    h('label', { for: list.id }, t('types.handouts.label', { type: name })),
    h('div', { class: 'row' }, list, h('button', { type: 'submit', class: 'secondary' }, t('types.handouts.save'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSave(name, list.value.split('\n'));
  });
  return form;
}

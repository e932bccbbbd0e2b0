/**
 * Each ticket type's attention flag and check-in note, below the per-type counts (docs/issuer.md "Attention
 * flags and check-in notes"): the rule `event ticket-type set` sets, by the same operation
 * (issuer/routes/admin/api.ts, POST /admin/api/events/:eid/ticket-types/attention), for every ticket of the type,
 * before the ticket's own note; and its handout items (docs/issuer.md "Handouts"), as `event ticket-type set
 * --handout` sets them (POST /admin/api/events/:eid/ticket-types/handouts). The rows are the types the overview counts and the types with a rule; they are
 * drawn again only when that list or the event changes, or after a save, so a note being typed is never lost to
 * a poll.
 */
import type { EventOverview, TicketTypeRules } from '../issuer/dashboard-api.js';
import type { ActionContext } from './actions.js';
import { ApiProblem } from './api.js';
import { announce, fill, h } from './dom.js';
import { typeHandoutsForm } from './handouts.js';
import { t } from './messages/format.js';

type Rule = TicketTypeRules['types'][number];
type Items = TicketTypeRules['handouts'][number]['items'];

export class TypeNotesPanel {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'type-notes', id: 'type-notes-list' });
  private readonly problem = h('p', { class: 'message', role: 'alert', id: 'type-notes-problem' });
  /** The event and the type names the rows were drawn for ('' before the first overview). */
  private drawnFor = '';
  private inFlight = false;
  /** The types the last overview counted, for drawing again after a save. */
  private countedNow: string[] = [];

  constructor(private readonly context: ActionContext) {
    this.problem.hidden = true;
    this.element = h(
      'section',
      { class: 'panel', id: 'type-notes' },
      h('h2', {}, t('types.notes.title')),
      h('p', { class: 'muted' }, t('types.notes.lead')),
      this.problem,
      this.list,
    );
  }

  /** After each overview: asks for the rules again only when the event or its list of types changed. */
  update(overview: EventOverview): void {
    const counted = overview.by_type.map((type) => type.ticket_type).filter((type): type is string => type !== null);
    const key = JSON.stringify([this.context.eid(), counted]);
    if (key === this.drawnFor || this.inFlight) return;
    void this.load(counted, key);
  }

  private async load(counted: string[], key: string): Promise<void> {
    this.inFlight = true;
    try {
      const { types, handouts } = await this.context.api().ticketTypes(this.context.eid());
      this.draw(counted, types, handouts);
      this.drawnFor = key;
      this.problem.hidden = true;
    } catch (error) {
      this.show(error);
    } finally {
      this.inFlight = false;
    }
  }

  private draw(counted: string[], rules: Rule[], handouts: TicketTypeRules['handouts']): void {
    const byType = new Map(rules.map((rule) => [rule.ticket_type, rule]));
    const items = new Map(handouts.map((list) => [list.ticket_type, list.items]));
    const names = [...new Set([...counted, ...rules.map((rule) => rule.ticket_type), ...handouts.map((list) => list.ticket_type)])].sort();
    this.countedNow = counted;
    if (names.length === 0) {
      fill(this.list, h('li', { class: 'empty' }, t('types.notes.none')));
      return;
    }
    fill(
      this.list,
      ...names.map((name) =>
        this.row(name, byType.get(name) ?? { ticket_type: name, attention: false, note: null }, items.get(name) ?? []),
      ),
    );
  }

  private row(name: string, rule: Rule, items: Items): HTMLElement {
    const slug = encodeURIComponent(name).replace(/%/g, '_');
    const flag = h('input', { type: 'checkbox', id: `type-attention-${slug}`, 'data-field': 'attention' });
    flag.checked = rule.attention;
    const note = h('input', { type: 'text', id: `type-note-${slug}`, maxlength: 200, autocomplete: 'off', 'data-field': 'note' });
    note.value = rule.note ?? '';
    const form = h(
      'form',
      { class: 'attention-form', 'data-action': 'type-attention' },
      h('h3', {}, h('bdi', {}, name)),
      h('label', { class: 'check' }, flag, ' ', t('types.notes.flag')),
      h('label', { for: note.id }, t('types.notes.note', { type: name })),
      h('div', { class: 'row' }, note, h('button', { type: 'submit', class: 'secondary' }, t('types.notes.save'))),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save(name, flag.checked, note.value);
    });
    return h(
      'li',
      { 'data-type': name },
      form,
      typeHandoutsForm(name, slug, items, (type, lines) => void this.saveHandouts(type, lines)),
    );
  }

  private async saveHandouts(name: string, lines: string[]): Promise<void> {
    try {
      const handouts = lines.map((line) => line.trim()).filter((line) => line !== '');
      const rules = await this.context.api().setTicketTypeHandouts(this.context.eid(), { ticket_type: name, handouts });
      this.problem.hidden = true;
      this.draw(this.countedNow, rules.types, rules.handouts);
      announce(t('types.handouts.saved', { type: name }));
      this.context.refresh();
    } catch (error) {
      this.show(error);
    }
  }

  private async save(name: string, attention: boolean, note: string): Promise<void> {
    try {
      const { types, handouts } = await this.context
        .api()
        .setTicketTypeAttention(this.context.eid(), { ticket_type: name, attention, note: note.trim() === '' ? null : note.trim() });
      this.problem.hidden = true;
      this.draw(this.countedNow, types, handouts);
      announce(t('types.notes.saved', { type: name }));
    } catch (error) {
      this.show(error);
    }
  }

  private show(error: unknown): void {
    if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
    this.problem.textContent = error instanceof ApiProblem ? error.message : t('action.failed');
    this.problem.hidden = false;
  }
}

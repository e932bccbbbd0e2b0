/**
 * The event's staff badges on the dashboard (docs/issuer.md "Staff roles and badges"): name, role, staff id,
 * when each is valid, and whether it is revoked (when, why), with a Revoke button on each badge still standing.
 * Badges are not part of the overview: the table asks for them after each overview, one request at a time, and
 * updates its rows in place (keyed by staff id) as the scanners table does, so a click is never lost to a redraw.
 */
import type { StaffBadgeView } from '../issuer/dashboard-api.js';
import type { ActionContext } from './actions.js';
import { ApiProblem } from './api.js';
import { h } from './dom.js';
import { badgeState, badgeStateText, formatDateTime, roleText, type BadgeState } from './format.js';
import { t } from './messages/format.js';

/** The colour class only repeats the words (never colour alone). */
const STATE_CLASS: Record<BadgeState, string> = { valid: 'online', not_yet: 'offline', expired: 'offline', revoked: 'revoked' };

export class StaffBadgeTable {
  private readonly body = h('tbody', {});
  private readonly rows = new Map<string, { row: HTMLTableRowElement; cells: HTMLTableCellElement[]; button: HTMLButtonElement }>();
  /** The newest data of each row, for its Revoke button. */
  private readonly latest = new Map<string, StaffBadgeView>();
  readonly element: HTMLElement;
  private readonly emptyNote = h('p', { class: 'empty', id: 'staff-badges-none' }, t('badges.none'));
  private readonly problem = h('p', { class: 'message', role: 'alert', id: 'staff-badges-problem' });
  private readonly table: HTMLTableElement;
  private inFlight = false;

  constructor(
    private readonly context: ActionContext,
    private readonly onRevoke: (badge: StaffBadgeView) => void,
  ) {
    this.table = h(
      'table',
      { class: 'scanners', id: 'staff-badge-table' },
      h('caption', { class: 'visually-hidden' }, t('badges.title')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            t('badges.column.name'),
            t('badges.column.role'),
            t('badges.column.sid'),
            t('badges.column.valid_from'),
            t('badges.column.valid_until'),
            t('badges.column.status'),
            '',
          ].map((column) => h('th', { scope: 'col' }, column)),
        ),
      ),
      this.body,
    );
    this.table.hidden = true;
    this.emptyNote.hidden = true;
    this.element = h(
      'section',
      { class: 'panel', id: 'staff-badges' },
      h('h2', {}, t('badges.title')),
      this.table,
      this.emptyNote,
      this.problem,
    );
  }

  /** Asks the issuer for the shown event's badges, unless a request is still out; an answer for another event is dropped. */
  refresh(nowMs: number): void {
    if (this.inFlight) return;
    const eid = this.context.eid();
    this.inFlight = true;
    this.context
      .api()
      .staffBadges(eid)
      .then(({ badges }) => {
        if (eid !== this.context.eid()) return;
        this.problem.textContent = '';
        this.update(badges, nowMs);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
        this.problem.textContent = t('badges.not_loaded', { problem: error instanceof ApiProblem ? error.message : t('action.failed') });
      })
      .finally(() => {
        this.inFlight = false;
      });
  }

  update(badges: StaffBadgeView[], nowMs: number): void {
    const seen = new Set<string>();
    for (const badge of badges) {
      seen.add(badge.sid);
      let entry = this.rows.get(badge.sid);
      if (entry === undefined) {
        const cells = Array.from({ length: 6 }, () => h('td', {}));
        const button = h('button', { type: 'button', class: 'danger small', 'data-action': 'revoke-badge' }, t('badges.revoke'));
        const current = badge;
        button.addEventListener('click', () => this.onRevoke(this.latest.get(current.sid) ?? current));
        const row = h('tr', { 'data-sid': badge.sid }, ...cells, h('td', {}, button));
        entry = { row, cells, button };
        this.rows.set(badge.sid, entry);
      }
      this.latest.set(badge.sid, badge);
      const state = badgeState(badge, nowMs);
      const [name, role, sid, from, until, status] = entry.cells as [
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
        HTMLTableCellElement,
      ];
      setText(name, badge.name);
      setText(role, roleText(badge.role));
      setText(sid, badge.sid);
      setText(from, formatDateTime(badge.not_before));
      setText(until, formatDateTime(badge.expires_at));
      setText(status, badgeStateText(badge, nowMs));
      status.className = `state ${STATE_CLASS[state]}`;
      entry.row.dataset.state = state;
      entry.button.hidden = state === 'revoked';
      entry.button.setAttribute('aria-label', t('badges.revoke_label', { name: badge.name }));
    }
    for (const [key, entry] of this.rows) {
      if (!seen.has(key)) {
        entry.row.remove();
        this.rows.delete(key);
        this.latest.delete(key);
      }
    }
    // In the server's order, moving rows only when it changed.
    badges.forEach((badge, index) => {
      const row = this.rows.get(badge.sid)!.row;
      if (this.body.children[index] !== row) this.body.insertBefore(row, this.body.children[index] ?? null);
    });
    this.table.hidden = badges.length === 0;
    this.emptyNote.hidden = badges.length > 0;
  }
}

function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

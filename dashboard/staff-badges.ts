/**
 * The event's staff badges on the dashboard (docs/issuer.md "Staff roles and badges"): name, role, staff id,
 * when each is valid, and whether it is revoked (when, why), with a Revoke button on each badge still standing.
 * Badges are not part of the overview: the table asks for them after each overview, one request at a time, and
 * updates its rows in place (keyed by staff id) as the scanners table does, so a click is never lost to a redraw.
 *
 * Below the table, a form issues a new badge (docs/issuer.md "Admin dashboard"; the issuer signs it with the
 * operation `staff badge issue` uses), and its QR is shown once, large, to be printed or scanned off the screen.
 */
import type { StaffBadgeIssued, StaffBadgeIssueRequest, StaffBadgeView } from '../issuer/dashboard-api.js';
import { STAFF_ROLES } from '../protocol/access.js';
import { openQrDialog, wholePixelFit, type ActionContext } from './actions.js';
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
      this.issueForm(),
    );
  }

  /** docs/issuer.md "Admin dashboard": name, role, and optionally when it starts and ends (empty: the CLI's defaults). */
  private issueForm(): HTMLElement {
    const name = h('input', { id: 'badge-name', type: 'text', autocomplete: 'off', maxlength: 80 });
    const role = h('select', { id: 'badge-role' }, ...STAFF_ROLES.map((value) => h('option', { value }, roleText(value))));
    const notBefore = h('input', { id: 'badge-not-before', type: 'datetime-local' });
    const expires = h('input', { id: 'badge-expires', type: 'datetime-local' });
    const message = h('p', { class: 'message', role: 'alert', id: 'badge-issue-problem' });
    const submit = h('button', { type: 'submit', class: 'primary', id: 'issue-badge' }, t('badges.issue.submit'));
    const field = (input: HTMLElement, label: string) => h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
    const form = h(
      'form',
      { class: 'badge-form', id: 'badge-issue-form', novalidate: true },
      h('h3', {}, t('badges.issue.title')),
      h('p', { class: 'muted' }, t('badges.issue.lead')),
      h(
        'div',
        { class: 'badge-fields' },
        field(name, t('badges.issue.name')),
        field(role, t('badges.issue.role')),
        field(notBefore, t('badges.issue.not_before')),
        field(expires, t('badges.issue.expires')),
      ),
      h('div', { class: 'buttons' }, submit),
      message,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      message.textContent = '';
      if (name.value.trim() === '') {
        message.textContent = t('badges.issue.name_required');
        name.focus();
        return;
      }
      const request: StaffBadgeIssueRequest = { name: name.value.trim(), role: role.value };
      // A datetime-local value is the browser's local time; the issuer takes ISO 8601 with a zone (docs/protocol.md "Times").
      const from = localToIso(notBefore.value);
      const until = localToIso(expires.value);
      if (from !== undefined) request.not_before = from;
      if (until !== undefined) request.expires_at = until;
      submit.disabled = true;
      const eid = this.context.eid();
      this.context
        .api()
        .issueStaffBadge(eid, request)
        .then((badge) => {
          form.reset();
          showIssuedBadge(this.context, badge);
          this.refresh(Date.now());
        })
        .catch((error: unknown) => {
          if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
          message.textContent = error instanceof ApiProblem ? error.message : t('action.failed');
        })
        .finally(() => {
          submit.disabled = false;
        });
    });
    return form;
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

/** '' (left empty) is undefined: the issuer's default applies. */
function localToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The new badge's QR, shown this once (the list never carries codes), as large as the screen allows. */
function showIssuedBadge(context: ActionContext, badge: StaffBadgeIssued): void {
  const image = h('img', { id: 'badge-qr-image', src: badge.qr_image, alt: t('badge.issued.qr_alt', { name: badge.name }) });
  const frame = h('div', { class: 'setup-qr' }, image);
  const fit = wholePixelFit(frame, image);
  const done = h('button', { type: 'button', class: 'primary', id: 'close-badge' }, t('badge.issued.done'));
  const dialog = h(
    'dialog',
    { id: 'badge-dialog', class: 'setup', 'aria-labelledby': 'badge-dialog-title', 'data-sid': badge.sid },
    frame,
    h(
      'div',
      { class: 'setup-text' },
      h('h2', { id: 'badge-dialog-title' }, t('badge.issued.title', { name: badge.name })),
      h('p', { class: 'setup-scope' }, t('badge.issued.scope', { role: roleText(badge.role), event: badge.event_name })),
      h('p', {}, t('badge.issued.valid', { from: formatDateTime(badge.not_before), until: formatDateTime(badge.expires_at) })),
      h('p', { class: 'muted' }, t('badge.issued.sid', { sid: badge.sid })),
      h('p', {}, t('badge.issued.once')),
      h('div', { class: 'buttons' }, done),
    ),
  );
  openQrDialog(context, dialog, fit, done, t('badge.issued.ready', { name: badge.name }));
}

function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

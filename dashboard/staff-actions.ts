/**
 * The event's staff actions on the dashboard (docs/issuer.md "Admin dashboard"): what door staff did at the
 * kiosks, as each kiosk's heartbeat reported the staff records of its audit log (docs/protocol.md "Scanner
 * heartbeat"), newest first, the newest 200. Time, kiosk, who (name, role, staff id), what in words, the ticket.
 * Not part of the overview: asked for after each overview, one request at a time, and drawn again only when
 * the answer changed.
 */
import type { StaffActionList, StaffActionView } from '../issuer/dashboard-api.js';
import type { ActionContext } from './actions.js';
import { fill, h } from './dom.js';
import { EventPanelRequest } from './event-panel-request.js';
import { formatDateTime, roleText } from './format.js';
import { t, tn } from './messages/format.js';

/** The kiosk calls the list names in words; any other is shown by its name. */
const CALL_WORDS: Record<string, () => string> = {
  setLanguage: () => t('staff_actions.call.setLanguage'),
  setDirection: () => t('staff_actions.call.setDirection'),
  calibrate: () => t('staff_actions.call.calibrate'),
  resetCalibration: () => t('staff_actions.call.resetCalibration'),
  annul: () => t('staff_actions.call.annul'),
  overrideAttention: () => t('staff_actions.call.overrideAttention'),
  setStaffPin: () => t('staff_actions.call.setStaffPin'),
  removeStaffPin: () => t('staff_actions.call.removeStaffPin'),
  lookupStatus: () => t('staff_actions.call.lookupStatus'),
  searchTickets: () => t('staff_actions.call.searchTickets'),
  manualCheckIn: () => t('staff_actions.call.manualCheckIn'),
  verifyLog: () => t('staff_actions.call.verifyLog'),
  confirmReEnroll: () => t('staff_actions.call.confirmReEnroll'),
  leaveKioskMode: () => t('staff_actions.call.leaveKioskMode'),
  configureLanes: () => t('staff_actions.call.configureLanes'),
  verdictDetails: () => t('staff_actions.call.verdictDetails'),
};

/** The records whose event alone says what happened. */
const EVENT_WORDS: Record<string, () => string> = {
  unlocked: () => t('staff_actions.what.unlocked'),
  locked: () => t('staff_actions.what.locked'),
  wrong_pin: () => t('staff_actions.what.wrong_pin'),
  pin_set: () => t('staff_actions.what.pin_set'),
  pin_removed: () => t('staff_actions.what.pin_removed'),
  badge_refused: () => t('staff_actions.what.badge_refused'),
  attention_override: () => t('staff_actions.what.attention_override'),
  manual_check_in: () => t('staff_actions.what.manual_check_in'),
};

function callText(call: string | null): string {
  if (call === null) return '';
  const key = CALL_WORDS[call];
  return key === undefined ? call : key();
}

function kioskRoleText(role: string): string {
  return role === 'anyone' ? t('staff_actions.role.anyone') : roleText(role);
}

/** What the record says happened, in the page's language. */
export function staffActionWhat(action: StaffActionView): string {
  if (action.event === 'staff_action') return t('staff_actions.what.call', { call: callText(action.call) });
  if (action.event === 'staff_refused') {
    return action.needs === null
      ? t('staff_actions.what.refused_pin', { call: callText(action.call) })
      : t('staff_actions.what.refused', { call: callText(action.call), role: roleText(action.needs) });
  }
  const key = EVENT_WORDS[action.event];
  return key === undefined ? action.event : key();
}

/** Who was at the kiosk: name, role and staff id; the role alone when no one had unlocked it. */
export function staffActionWho(action: StaffActionView): string {
  const role = kioskRoleText(action.role);
  if (action.staff_id === null) return t('staff_actions.nobody', { role });
  if (action.name === null) return t('staff_actions.who_id', { sid: action.staff_id, role });
  return t('staff_actions.who', { name: action.name, role, sid: action.staff_id });
}

export class StaffActionPanel {
  private readonly body = h('tbody', {});
  private readonly table: HTMLTableElement;
  private readonly emptyNote = h('p', { class: 'empty', id: 'staff-actions-none' }, t('staff_actions.none'));
  private readonly truncatedNote = h('p', { class: 'muted', id: 'staff-actions-truncated' });
  private readonly problem = h('p', { class: 'message', role: 'alert', id: 'staff-actions-problem' });
  readonly element: HTMLElement;
  /** The last answer drawn, as JSON: the same answer is not drawn again. */
  private drawn = '';
  private readonly request: EventPanelRequest<StaffActionList>;

  constructor(context: ActionContext) {
    this.request = new EventPanelRequest(
      context,
      (api, eid) => api.staffActions(eid),
      (list) => {
        this.problem.textContent = '';
        this.update(list);
      },
      (problem) => {
        this.problem.textContent = t('staff_actions.not_loaded', { problem });
      },
    );
    this.table = h(
      'table',
      { class: 'scanners', id: 'staff-action-table' },
      h('caption', { class: 'visually-hidden' }, t('staff_actions.title')),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            t('staff_actions.column.time'),
            t('staff_actions.column.kiosk'),
            t('staff_actions.column.who'),
            t('staff_actions.column.what'),
            t('staff_actions.column.ticket'),
          ].map((column) => h('th', { scope: 'col' }, column)),
        ),
      ),
      this.body,
    );
    this.table.hidden = true;
    this.emptyNote.hidden = true;
    this.truncatedNote.hidden = true;
    this.element = h(
      'section',
      { class: 'panel', id: 'staff-actions' },
      h('h2', {}, t('staff_actions.title')),
      h('p', { class: 'muted' }, t('staff_actions.lead')),
      this.table,
      this.emptyNote,
      this.truncatedNote,
      this.problem,
    );
  }

  /** Asks the issuer for the shown event's staff actions, unless a request is still out; an answer for another event is dropped. */
  refresh(): void {
    this.request.refresh();
  }

  update(list: StaffActionList): void {
    const json = JSON.stringify(list);
    if (json === this.drawn) return;
    this.drawn = json;
    fill(
      this.body,
      ...list.actions.map((action) =>
        h(
          'tr',
          { 'data-event': action.event, 'data-staff-id': action.staff_id ?? '', 'data-tid': action.tid ?? '' },
          h('td', { class: 'time' }, formatDateTime(action.at)),
          h('td', { class: 'kiosk' }, action.scanner_name ?? action.scanner_id),
          h('td', { class: 'who' }, staffActionWho(action)),
          h('td', { class: 'what' }, staffActionWhat(action)),
          h('td', { class: 'ticket' }, action.tid ?? ''),
        ),
      ),
    );
    this.table.hidden = list.actions.length === 0;
    this.emptyNote.hidden = list.actions.length > 0;
    this.truncatedNote.hidden = !list.truncated;
    this.truncatedNote.textContent = tn('staff_actions.truncated', list.limit);
  }
}

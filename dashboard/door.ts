/**
 * The door on the dashboard (docs/issuer.md "Admin dashboard", docs/protocol.md "Door operations"):
 * live occupancy with the capacity (a warning in words from 90%, FULL at 100%), inside per gate,
 * each kiosk's direction, heartbeat, queue and offline exposure, and the annulled check-ins; and
 * the forms that set the entry policy, the capacity and the offline policies. The live parts are
 * redrawn from each overview; the forms are built once, so a refresh never takes what is being typed.
 */
import type {
  AnnulmentView,
  DoorOverview,
  EventOverview,
  KioskView,
  OfflinePolicyKind,
  OfflinePolicyView,
} from '../issuer/dashboard-api.js';
import { ApiProblem } from './api.js';
import type { ActionContext } from './actions.js';
import { announce, fill, h } from './dom.js';
import { formatAge, formatClock, formatCount, formatDateTime, formatDuration, formatPercent, labelOrNone, staffText } from './format.js';
import { t, tn } from './messages/format.js';

/** One policy in words: "Admit on a valid signature", "At most 5 per kiosk per hour"… */
export function policyText(policy: Pick<OfflinePolicyView, 'policy' | 'per_hour'>): string {
  switch (policy.policy) {
    case 'offline':
      return t('policies.kind.offline');
    case 'online-only':
      return t('policies.kind.online_only');
    case 'capped':
      return tn('policies.kind.capped', policy.per_hour ?? 0, { count: formatCount(policy.per_hour ?? 0) });
  }
}

/** Who annulled: the dashboard, the command line, or a scanner (actor `scanner:<id>`). */
export function actorText(actor: string): string {
  if (actor === 'dashboard') return t('activity.actor.dashboard');
  if (actor === 'cli') return t('activity.actor.cli');
  return t('activity.actor.scanner', { id: actor.replace(/^scanner:/, '') });
}

/** The event's check-out at a set time, as a line of the occupancy tile (docs/issuer.md "Check-out at a set time"). */
function exitAllText(setting: DoorOverview['exit_all']): string[] {
  if (!setting) return [];
  return /^\d\d:\d\d$/.test(setting.at)
    ? [t('door.exit_all.daily', { time: setting.at, zone: setting.time_zone })]
    : [t('door.exit_all.once', { time: formatDateTime(setting.at) })];
}

function bar(fraction: number, label: string): HTMLElement {
  const inner = h('div', { class: 'bar-fill' });
  // CSSOM, not a style attribute: the CSP allows no inline styles.
  inner.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  return h('div', { class: 'bar', role: 'img', 'aria-label': label }, inner);
}

function table(caption: string, columns: string[], rows: Node[], numeric: number[]): HTMLTableElement {
  return h(
    'table',
    { class: 'counts' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ...columns.map((column, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : '' }, column)))),
    h('tbody', {}, ...rows),
  );
}

/** Occupancy: inside now against the capacity, its level in words, per gate of entry. */
function renderOccupancy(root: HTMLElement, door: DoorOverview): void {
  const { occupancy } = door;
  const capacity = occupancy.capacity;
  const value =
    capacity === null
      ? formatCount(occupancy.inside)
      : t('door.inside.of', { inside: formatCount(occupancy.inside), capacity: formatCount(capacity) });
  const level =
    occupancy.level === 'full'
      ? h(
          'p',
          { class: 'door-level level-full', id: 'door-level', 'data-level': 'full', role: 'status' },
          h('strong', {}, t('door.level.full')),
          ' ',
          t('door.level.full.text'),
        )
      : occupancy.level === 'nearly_full'
        ? h(
            'p',
            { class: 'door-level level-nearly_full', id: 'door-level', 'data-level': 'nearly_full', role: 'status' },
            h('strong', {}, t('door.level.nearly_full')),
            ' ',
            t('door.level.nearly_full.text', { percent: formatPercent(occupancy.inside, capacity!), capacity: formatCount(capacity!) }),
          )
        : null;
  fill(
    root,
    h('h2', {}, t('door.title')),
    h(
      'div',
      { class: `door-now level-${occupancy.level}`, id: 'door-now', 'data-level': occupancy.level },
      h('div', { class: 'tile-label' }, t('door.inside')),
      h('div', { class: 'tile-value', id: 'door-inside', 'data-value': String(occupancy.inside) }, value),
      h(
        'div',
        { class: 'tile-detail' },
        [
          capacity === null ? t('door.no_capacity') : t('door.capacity', { capacity: formatCount(capacity) }),
          t('door.entries_exits', {
            entries: tn('door.entries', occupancy.entries, { count: formatCount(occupancy.entries) }),
            exits: tn('door.exits', occupancy.exits, { count: formatCount(occupancy.exits) }),
          }),
          door.entry_policy === 'reentry' ? t('door.policy.reentry') : t('door.policy.single'),
          ...exitAllText(door.exit_all),
        ].join(' · '),
      ),
      capacity === null ? null : bar(occupancy.inside / capacity, t('door.bar', { percent: formatPercent(occupancy.inside, capacity) })),
    ),
    level,
    occupancy.by_gate.length === 0
      ? h('p', { class: 'empty' }, t('door.gates.none'))
      : table(
          t('door.gates.caption'),
          [t('door.gates.column.gate'), t('door.gates.column.inside'), t('door.gates.column.entries'), t('door.gates.column.exits')],
          occupancy.by_gate.map((gate) =>
            h(
              'tr',
              { 'data-gate': gate.gate_id ?? '' },
              h('th', { scope: 'row' }, labelOrNone(gate.gate_id, t('gates.no_gate'))),
              h('td', { class: 'num' }, formatCount(gate.inside)),
              h('td', { class: 'num' }, formatCount(gate.entries)),
              h('td', { class: 'num' }, formatCount(gate.exits)),
            ),
          ),
          [1, 2, 3],
        ),
  );
}

function exposureText(kiosk: KioskView): Node {
  if (kiosk.exposure.length === 0) return document.createTextNode(t('kiosks.exposure.none'));
  return h(
    'ul',
    { class: 'exposure' },
    ...kiosk.exposure.map((row) =>
      h(
        'li',
        { 'data-type': row.ticket_type, class: row.at_cap ? 'at-cap' : '' },
        t('kiosks.exposure.type', {
          type: labelOrNone(row.ticket_type, t('types.no_type')),
          unsynced: formatCount(row.unsynced),
          last_hour: formatCount(row.last_hour),
          cap: row.per_hour === null ? '' : t('kiosks.exposure.cap', { cap: formatCount(row.per_hour) }),
          synced: formatCount(row.synced),
        }),
        row.at_cap ? h('strong', { class: 'cap-tag' }, ` ${t('kiosks.exposure.at_cap')}`) : null,
      ),
    ),
  );
}

function renderKiosks(root: HTMLElement, kiosks: KioskView[], nowMs: number): void {
  fill(
    root,
    h('h2', {}, t('kiosks.title')),
    kiosks.length === 0
      ? h('p', { class: 'empty' }, t('kiosks.none'))
      : table(
          t('kiosks.caption'),
          [
            t('kiosks.column.kiosk'),
            t('scanners.column.gate'),
            t('kiosks.column.direction'),
            t('kiosks.column.heartbeat'),
            t('kiosks.column.queue'),
            t('kiosks.column.exposure'),
          ],
          kiosks.map((kiosk) =>
            h(
              'tr',
              { 'data-api-key-id': kiosk.api_key_id },
              h('th', { scope: 'row' }, kiosk.scanner_name ?? kiosk.scanner_id),
              h('td', {}, labelOrNone(kiosk.gate_id, t('scanners.all_gates'))),
              h('td', {}, kiosk.direction === 'exit' ? t('kiosks.direction.exit') : t('kiosks.direction.entry')),
              h(
                'td',
                {},
                kiosk.last_heartbeat_at === null
                  ? t('kiosks.no_heartbeat')
                  : `${formatAge(nowMs - Date.parse(kiosk.last_heartbeat_at))} (${formatClock(kiosk.last_heartbeat_at)})`,
                // docs/issuer.md "Kiosk clocks": a clock off by more than a minute misjudges expiry and time windows.
                kiosk.clock_off && kiosk.clock_offset_ms !== null
                  ? h(
                      'strong',
                      { class: 'clock-off', 'data-clock-offset-ms': String(kiosk.clock_offset_ms) },
                      ` ${t('kiosks.clock_off', { offset: formatDuration(Math.abs(kiosk.clock_offset_ms) / 1000) })}`,
                    )
                  : '',
              ),
              h('td', { class: 'num' }, kiosk.pending_scans === null ? t('kiosks.queue.unknown') : formatCount(kiosk.pending_scans)),
              h('td', {}, exposureText(kiosk)),
            ),
          ),
          [4],
        ),
  );
}

function renderActivity(root: HTMLElement, activity: EventOverview['activity']): void {
  const item = (annulment: AnnulmentView): HTMLElement =>
    h(
      'li',
      { class: 'annulment', 'data-tid': annulment.tid, 'data-id': annulment.id },
      h(
        'strong',
        {},
        t('activity.item', {
          holder: labelOrNone(annulment.holder_name, t('ticket.no_name')),
          time: formatClock(annulment.at),
          actor: actorText(annulment.actor),
        }),
      ),
      h('span', { class: 'muted' }, ` · ${annulment.tid}`),
      h('p', {}, annulment.reason === null ? t('activity.no_reason') : t('activity.reason', { reason: annulment.reason })),
      // Who at the door (docs/issuer.md "Admin dashboard"): the badge holder who annulled it, and who had let the holder in.
      annulment.annulled_by === null
        ? null
        : h(
            'p',
            { class: 'staff annulled-by', 'data-staff-id': annulment.annulled_by.staff_id },
            t('activity.annulled_by', { who: staffText(annulment.annulled_by) }),
          ),
      annulment.admitted_by === null
        ? null
        : h(
            'p',
            { class: 'staff admitted-by', 'data-staff-id': annulment.admitted_by.staff_id },
            t('activity.admitted_by', { who: staffText(annulment.admitted_by) }),
          ),
    );
  fill(
    root,
    h(
      'h2',
      {},
      t('activity.title'),
      ' ',
      h('span', { class: 'muted count-note' }, tn('activity.count', activity.annulments, { count: formatCount(activity.annulments) })),
    ),
    // docs/issuer.md "ID and age checks": entries a scanner let in without the steward checking the ID (word and count, a tile).
    h(
      'p',
      {
        class: `tile id-not-checked${activity.id_not_checked > 0 ? ' warn' : ''}`,
        id: 'id-not-checked',
        'data-count': String(activity.id_not_checked),
      },
      tn('activity.id_not_checked', activity.id_not_checked, { count: formatCount(activity.id_not_checked) }),
    ),
    activity.recent.length === 0
      ? h('p', { class: 'empty' }, t('activity.none'))
      : h('ol', { class: 'annulments', id: 'annulment-list' }, ...activity.recent.map(item)),
  );
}

const problemText = (error: unknown): string => (error instanceof ApiProblem ? error.message : t('action.failed'));

/**
 * The door's panels: `live` (occupancy, kiosks, annulments) near the top of the page, `settings`
 * (entry policy, capacity, offline policies) beside the other actions.
 */
export class DoorPanel {
  readonly live: HTMLElement;
  readonly settings: HTMLElement;
  private readonly occupancy = h('section', { class: 'panel door', id: 'door' });
  private readonly kiosks = h('section', { class: 'panel', id: 'kiosks' });
  private readonly activity = h('section', { class: 'panel', id: 'activity' });
  private readonly policyRows = h('tbody', {});
  private readonly typeSelect = h('select', { id: 'policy-type' });
  private readonly entryPolicy = h(
    'select',
    { id: 'door-entry-policy' },
    h('option', { value: 'single' }, t('door.settings.single')),
    h('option', { value: 'reentry' }, t('door.settings.reentry')),
  );
  private readonly capacity = h('input', {
    id: 'door-capacity',
    type: 'number',
    min: 1,
    step: 1,
    inputmode: 'numeric',
    autocomplete: 'off',
  });
  /** The event whose settings the form shows; the form is filled again when it changes. */
  private shownEvent: string | null = null;

  constructor(private readonly context: ActionContext) {
    this.live = h('div', { class: 'door-live' }, this.occupancy, h('div', { class: 'columns' }, this.kiosks, this.activity));
    this.settings = h('section', { class: 'actions', id: 'door-settings' }, this.doorForm(), this.policyForm());
  }

  update(overview: EventOverview): void {
    const now = Date.parse(overview.generated_at);
    renderOccupancy(this.occupancy, overview.door);
    renderKiosks(this.kiosks, overview.door.kiosks, now);
    renderActivity(this.activity, overview.activity);
    this.showPolicies(overview.door.offline_policies);
    if (this.shownEvent !== overview.eid) {
      this.shownEvent = overview.eid;
      this.entryPolicy.value = overview.door.entry_policy;
      this.capacity.value = overview.door.capacity === null ? '' : String(overview.door.capacity);
    }
  }

  private doorForm(): HTMLElement {
    const message = h('p', { class: 'message', role: 'alert', id: 'door-settings-message' });
    const form = h(
      'form',
      { class: 'inline-form', novalidate: true, id: 'door-settings-form' },
      h('label', { for: 'door-entry-policy' }, t('door.settings.policy')),
      h('div', { class: 'row' }, this.entryPolicy),
      h('label', { for: 'door-capacity' }, t('door.settings.capacity')),
      h(
        'div',
        { class: 'row' },
        this.capacity,
        h('button', { type: 'submit', class: 'primary', id: 'door-settings-save' }, t('door.settings.save')),
      ),
      message,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      message.textContent = '';
      const text = this.capacity.value.trim();
      const capacity = text === '' ? null : Number(text);
      if (capacity !== null && !(Number.isSafeInteger(capacity) && capacity >= 1)) {
        message.textContent = t('door.settings.capacity_invalid');
        return;
      }
      const entryPolicy = this.entryPolicy.value === 'reentry' ? 'reentry' : 'single';
      this.context
        .api()
        .setDoor(this.context.eid(), { entry_policy: entryPolicy, capacity })
        .then((saved) => {
          this.entryPolicy.value = saved.entry_policy;
          this.capacity.value = saved.capacity === null ? '' : String(saved.capacity);
          announce(t('door.settings.saved'));
          this.context.refresh();
        })
        .catch((error: unknown) => {
          if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
          message.textContent = problemText(error);
        });
    });
    return h('div', { class: 'panel action', id: 'door-settings-panel' }, h('h2', {}, t('door.settings.title')), form);
  }

  private policyForm(): HTMLElement {
    const kind = h(
      'select',
      { id: 'policy-kind' },
      h('option', { value: 'offline' }, t('policies.kind.offline')),
      h('option', { value: 'online-only' }, t('policies.kind.online_only')),
      h('option', { value: 'capped' }, t('policies.option.capped')),
    );
    const perHour = h('input', { id: 'policy-per-hour', type: 'number', min: 1, step: 1, inputmode: 'numeric', autocomplete: 'off' });
    const perHourLabel = h('label', { for: 'policy-per-hour' }, t('policies.form.per_hour'));
    const showPerHour = (): void => {
      perHour.hidden = perHourLabel.hidden = kind.value !== 'capped';
    };
    kind.addEventListener('change', showPerHour);
    showPerHour();
    const message = h('p', { class: 'message', role: 'alert', id: 'policy-message' });
    const form = h(
      'form',
      { class: 'inline-form', novalidate: true, id: 'policy-form' },
      h('label', { for: 'policy-type' }, t('policies.form.type')),
      h('div', { class: 'row' }, this.typeSelect),
      h('label', { for: 'policy-kind' }, t('policies.form.policy')),
      h('div', { class: 'row' }, kind),
      perHourLabel,
      h('div', { class: 'row' }, perHour, h('button', { type: 'submit', class: 'primary', id: 'policy-save' }, t('policies.form.save'))),
      message,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      message.textContent = '';
      const policy = kind.value as OfflinePolicyKind;
      const count = Number(perHour.value.trim());
      if (policy === 'capped' && !(Number.isSafeInteger(count) && count >= 1)) {
        message.textContent = t('policies.per_hour_invalid');
        return;
      }
      this.context
        .api()
        .setOfflinePolicy(this.context.eid(), {
          ticket_type: this.typeSelect.value,
          policy,
          ...(policy === 'capped' ? { per_hour: count } : {}),
        })
        .then((saved) => {
          this.showPolicies(saved.offline_policies);
          announce(t('policies.saved'));
          this.context.refresh();
        })
        .catch((error: unknown) => {
          if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
          message.textContent = problemText(error);
        });
    });
    return h(
      'div',
      { class: 'panel action', id: 'policies' },
      h('h2', {}, t('policies.title')),
      h('p', { class: 'muted' }, t('policies.lead')),
      h(
        'table',
        { class: 'counts', id: 'policy-table' },
        h('caption', { class: 'visually-hidden' }, t('policies.caption')),
        h(
          'thead',
          {},
          h('tr', {}, h('th', { scope: 'col' }, t('policies.column.type')), h('th', { scope: 'col' }, t('policies.column.policy'))),
        ),
        this.policyRows,
      ),
      form,
    );
  }

  /** The policy table and the type menu, from the issuer's list (the default first). */
  private showPolicies(policies: OfflinePolicyView[]): void {
    const typeName = (type: string): string => (type === '' ? t('policies.default') : type);
    fill(
      this.policyRows,
      ...policies.map((policy) =>
        h(
          'tr',
          { 'data-type': policy.ticket_type },
          h('th', { scope: 'row' }, typeName(policy.ticket_type)),
          h('td', {}, policy.own ? policyText(policy) : t('policies.follows_default', { policy: policyText(policy) })),
        ),
      ),
    );
    const options = policies.map((policy) => policy.ticket_type);
    const current = [...this.typeSelect.options].map((option) => option.value);
    if (options.join('\n') !== current.join('\n')) {
      const selected = this.typeSelect.value;
      fill(this.typeSelect, ...options.map((type) => h('option', { value: type, selected: type === selected }, typeName(type))));
    }
  }
}

/**
 * The admin dashboard's live figures (docs/issuer.md "Admin dashboard").
 *
 * Everything comes from the database, so it is right whichever issuer
 * process (or admin command) wrote it: issued tickets, check-ins and the
 * scan audit log. Those three tables only ever grow, so the aggregator keeps
 * running totals and on each refresh reads only the rows added since, by
 * rowid (issuer/store/dashboard.ts). The door's check-in path is untouched:
 * no extra write, no extra index, no hook.
 *
 * The rules, each a named constant or a pure function below:
 * - a scanner is **online** when its last contact (its enrollment or its
 *   latest check-in request, whatever the answer) is at most 2 minutes old,
 *   and its key is neither revoked nor expired. Kiosks talk to the issuer
 *   only when they scan, so a quiet gate goes "offline" too; the page says
 *   "no contact for N min", not "broken";
 * - a **possible offline double admission** is a check-in answered
 *   `already_used` that reached the issuer more than 30 s after its
 *   `scanned_at`: a kiosk that was offline admitted the holder and its queue
 *   arrived after someone else had already got in on the same ticket. (The
 *   issuer cannot see the kiosk's verdict: a strict-policy kiosk resending a
 *   held scan looks the same, and so does a scanner clock more than 30 s
 *   behind; hence "possible".) Replays of the same idempotency key are never
 *   counted: their outcome is `replay`;
 * - **forged-signature reports** are `invalid_signature` reports; **revoked**
 *   and **wrong-event** alerts are scans answered `revoked` / `wrong_event`;
 * - the **arrivals chart** counts admission_events' entries and exits per
 *   minute of their door time (`at`) and gate, incrementally like the rest
 *   (services/arrivals.ts): a late offline sync lands in the minutes it was
 *   scanned in.
 */
import { attentionOf } from '../../protocol/attention.js';
import { ticketRuleOf } from '../store/attention-notes.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { policyForType, typeKey, type OfflinePolicies } from '../../protocol/door.js';
import type {
  AlertCounts,
  AlertKind,
  AlertView,
  AnnulmentView,
  StaffMemberView,
  DoorOverview,
  EventOverview,
  KioskExposureView,
  KioskView,
  OfflinePolicyView,
  ScannerView,
  TicketView,
} from '../dashboard-api.js';
import type { CheckinRow } from '../store/checkins.js';
import type { Sql } from '../store/sql.js';
import {
  admissionEventsAfter,
  annulledAdmission,
  apiKeyEvents,
  checkinsAfter,
  findLookupRow,
  highestRowids,
  kioskRows,
  revokedCount,
  scansAfter,
  ticketsAfter,
  type KioskRow,
  type LookupRow,
  type NewAdmissionEventRow,
  type NewScanRow,
} from '../store/dashboard.js';
import { offlinePoliciesOf } from '../store/door.js';
import { findEvent } from '../store/events.js';
import { findStaffBadge } from '../store/staff-badges.js';
import { ArrivalCounts, compareLabels, minuteOf } from './arrivals.js';
import { eventOccupancy } from './door.js';
import { exitAllSettingOf } from './exit-all.js';

import { listApiKeys, type ApiKeyRow } from '../store/scanners.js';
import { ticketState } from './ticket-status.js';
import { ticketExtras, type TicketExtras } from './ticket-extras.js';

/** The event's check-out at a set time as the dashboard shows it (docs/issuer.md "Check-out at a set time"). */
async function exitAllView(db: Sql, eid: string): Promise<DoorOverview['exit_all']> {
  const setting = await exitAllSettingOf(db, eid);
  return setting === null ? null : { at: setting.at, time_zone: setting.time_zone };
}

/** A scanner is online when its last contact is at most this old. */
export const ONLINE_WINDOW_MS = 2 * 60_000;
/** The page polls this often (documented in the session answer). */
export const REFRESH_MS = 2_000;
/** The scans-per-minute chart: this many minutes, the current one included. */
export const RATE_MINUTES = 15;
/** Scan arrivals are counted in slots of this length (the "last minute" figure is exact to one slot). */
const SLOT_MS = 5_000;
const SLOTS_PER_MINUTE = 60_000 / SLOT_MS;
/** Alerts kept per event for the list (all are counted). */
const ALERTS_KEPT = 200;
/** Alerts sent to the page. */
export const ALERTS_SHOWN = 50;
/** Annulments sent to the page (all are counted). */
export const ANNULMENTS_SHOWN = 20;
/** Rows read per table per step; a step then yields to the event loop, so catching up never stalls the doors. */
const DEFAULT_CHUNK = 5_000;

// The alerts are judged by scan-alerts.ts, which the check-in's webhook uses too; re-exported for the dashboard's readers.
export { ALERT_KINDS, alertKindOf, LATE_SCAN_MS, scanDelayMs } from './scan-alerts.js';
import { alertKindOf, scanDelayMs } from './scan-alerts.js';

/** Pure: a revoked or expired key is never online, whatever its last contact. */
export function isOnline(
  key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>,
  lastContactMs: number,
  nowMs: number,
  windowMs = ONLINE_WINDOW_MS,
): boolean {
  if (key.revoked_at !== null || Date.parse(key.expires_at) <= nowMs) return false;
  return nowMs - lastContactMs <= windowMs;
}

interface AlertRef {
  scan: NewScanRow;
  kind: AlertKind;
  /** Filled the first time the alert is shown: the ticket's facts do not change afterwards. */
  ticket?: LookupRow | null;
}

/** An annulment kept for the list, with the staff id on the entry it undid. */
type AnnulmentRow = NewAdmissionEventRow & { admitted_staff_id: string | null };

/** Running totals of one event. */
class EventTally {
  issued = 0;
  checkedIn = 0;
  readonly issuedByType = new Map<string | null, number>();
  readonly checkedInByType = new Map<string | null, number>();
  readonly checkedInByGate = new Map<string | null, number>();
  /** Scan arrivals per slot start (ms). */
  readonly slots = new Map<number, number>();
  readonly alertCounts: AlertCounts = {
    offline_double_admission: 0,
    merged_double_admission: 0,
    forged_signature: 0,
    revoked_ticket: 0,
    wrong_event: 0,
  };
  /** Oldest first, at most ALERTS_KEPT. */
  alerts: AlertRef[] = [];
  annulments = 0;
  /** Entries recorded "ID not checked" (docs/protocol.md "ID checks (project extension)"): a spec scanner let them in. */
  idNotChecked = 0;
  /** Tickets whose last admission was annulled: their next entry (not a late one) is a check-in again. */
  readonly annulledTickets = new Set<string>();
  /** Oldest first, at most ANNULMENTS_SHOWN. */
  /** With the staff id on the entry each one undid (read with its gate, when the annulment is counted). */
  recentAnnulments: AnnulmentRow[] = [];
  /** Offline admissions synced to the issuer: scanner id → ticket type ('' for none) → count. */
  readonly offlineSynced = new Map<string, Map<string, number>>();
  /** Entries and exits per minute (at the door) and gate, since the first one: the arrivals chart. */
  readonly arrivals = new ArrivalCounts();

  /** A check-in counted (1) or undone (-1): tickets checked in now, by type and by the gate of their admission. */
  countCheckIn(ticketType: string | null, gateId: string | null, by: 1 | -1): void {
    this.checkedIn += by;
    bump(this.checkedInByType, ticketType, by);
    bump(this.checkedInByGate, gateId, by);
  }
}

const bump = <K>(map: Map<K, number>, key: K, by = 1): void => {
  map.set(key, (map.get(key) ?? 0) + by);
};

export interface DashboardOptions {
  /** Rows per table per step (tests use small ones). */
  chunk?: number;
  now?: () => number;
}

export class DashboardAggregator {
  private readonly chunk: number;
  private readonly now: () => number;
  private cursors = { tickets: 0, checkins: 0, scans: 0, events: 0 };
  private events = new Map<string, EventTally>();
  private lastScanByKey = new Map<string, number>();
  private scansByKey = new Map<string, number>();
  private keyEvent = new Map<string, string>();
  private caughtUp = false;
  private refreshing: Promise<boolean> | null = null;

  constructor(
    private readonly db: Sql,
    options: DashboardOptions = {},
  ) {
    this.chunk = options.chunk ?? DEFAULT_CHUNK;
    this.now = options.now ?? Date.now;
  }

  /**
   * Reads what was added since the last refresh, a chunk per table per step,
   * yielding between steps. Resolves true when caught up, false when it
   * stopped after `maxSteps` (the figures are then marked incomplete). Calls
   * made while one runs share it.
   */
  refresh(maxSteps = 20): Promise<boolean> {
    this.refreshing ??= this.runRefresh(maxSteps).finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async runRefresh(maxSteps: number): Promise<boolean> {
    const highest = await highestRowids(this.db);
    // Fewer rows than already counted: the database was replaced (a restored backup). Count again from scratch.
    if (
      highest.tickets < this.cursors.tickets ||
      highest.checkins < this.cursors.checkins ||
      highest.scans < this.cursors.scans ||
      highest.events < this.cursors.events
    )
      this.reset();
    for (let step = 0; step < maxSteps; step++) {
      if (await this.step()) return (this.caughtUp = true);
      await nextTurn();
    }
    return (this.caughtUp = false);
  }

  private reset(): void {
    this.cursors = { tickets: 0, checkins: 0, scans: 0, events: 0 };
    this.events = new Map();
    this.lastScanByKey = new Map();
    this.scansByKey = new Map();
    this.keyEvent = new Map();
  }

  private tally(eid: string): EventTally {
    let tally = this.events.get(eid);
    if (tally === undefined) this.events.set(eid, (tally = new EventTally()));
    return tally;
  }

  /** One chunk of each table; true when all four are exhausted. */
  async step(): Promise<boolean> {
    const tickets = await ticketsAfter(this.db, this.cursors.tickets, this.chunk);
    for (const row of tickets) {
      const tally = this.tally(row.eid);
      tally.issued++;
      bump(tally.issuedByType, row.ticket_type);
    }
    if (tickets.length > 0) this.cursors.tickets = tickets.at(-1)!.rowid;

    const checkins = await checkinsAfter(this.db, this.cursors.checkins, this.chunk);
    for (const row of checkins) this.tally(row.eid).countCheckIn(row.ticket_type, row.gate_id, 1);
    if (checkins.length > 0) this.cursors.checkins = checkins.at(-1)!.rowid;

    const scans = await scansAfter(this.db, this.cursors.scans, this.chunk);
    for (const row of scans) await this.countScan(row);
    if (scans.length > 0) this.cursors.scans = scans.at(-1)!.id;
    this.pruneSlots();

    const history = await admissionEventsAfter(this.db, this.cursors.events, this.chunk);
    for (const row of history) {
      const tally = this.tally(row.eid);
      tally.arrivals.add(minuteOf(row.at), row.gate_id, row.action);
      if (row.action === 'entry' && Number(row.admitted_offline) === 1 && row.scanner_id !== null) {
        let byType = tally.offlineSynced.get(row.scanner_id);
        if (byType === undefined) tally.offlineSynced.set(row.scanner_id, (byType = new Map()));
        bump(byType, typeKey(row.ticket_type));
      }
      if (row.action === 'entry' && Number(row.late) === 0 && tally.annulledTickets.delete(row.tid)) {
        // Admitted again after an annulment: a check-in again, where this entry happened.
        tally.countCheckIn(row.ticket_type, row.gate_id, 1);
      }
      if (row.action === 'entry' && row.id_check === 'not_checked') tally.idNotChecked++;
      if (row.action !== 'annul') continue;
      // An undone check-in is not a check-in (docs/protocol.md "Door operations": annul).
      const undone = await annulledAdmission(this.db, row.tid, Number(row.id));
      tally.countCheckIn(row.ticket_type, undone.gate_id, -1);
      tally.annulledTickets.add(row.tid);
      tally.annulments++;
      tally.recentAnnulments.push({ ...row, admitted_staff_id: undone.staff_id });
      if (tally.recentAnnulments.length > ANNULMENTS_SHOWN * 2) tally.recentAnnulments = tally.recentAnnulments.slice(-ANNULMENTS_SHOWN);
    }
    if (history.length > 0) this.cursors.events = history.at(-1)!.id;

    return tickets.length < this.chunk && checkins.length < this.chunk && scans.length < this.chunk && history.length < this.chunk;
  }

  private async countScan(row: NewScanRow): Promise<void> {
    const at = Date.parse(row.at);
    if (row.api_key_id !== null) {
      this.lastScanByKey.set(row.api_key_id, Math.max(this.lastScanByKey.get(row.api_key_id) ?? 0, at));
      if (row.outcome !== 'replay') bump(this.scansByKey, row.api_key_id);
    }
    // Counted for the event of the key that sent it (the door's event), whatever the request claimed.
    const eid = (row.api_key_id !== null ? await this.eventOfKey(row.api_key_id) : undefined) ?? row.eid;
    if (eid === null) return;
    const tally = this.tally(eid);
    if (row.outcome !== 'replay') bump(tally.slots, Math.floor(at / SLOT_MS) * SLOT_MS);
    const kind = alertKindOf(row);
    if (kind !== null) {
      tally.alertCounts[kind]++;
      tally.alerts.push({ scan: row, kind });
      if (tally.alerts.length > ALERTS_KEPT * 2) tally.alerts = tally.alerts.slice(-ALERTS_KEPT);
    }
  }

  private async eventOfKey(apiKeyId: string): Promise<string | undefined> {
    if (!this.keyEvent.has(apiKeyId)) {
      for (const { api_key_id, eid } of await apiKeyEvents(this.db)) this.keyEvent.set(api_key_id, eid);
    }
    return this.keyEvent.get(apiKeyId);
  }

  private pruneSlots(): void {
    const oldest = this.now() - (RATE_MINUTES + 1) * 60_000;
    for (const tally of this.events.values()) {
      for (const slot of tally.slots.keys()) if (slot < oldest) tally.slots.delete(slot);
    }
  }

  /** The page's figures for one event, as of the last refresh. */
  async overview(eid: string): Promise<EventOverview> {
    const nowMs = this.now();
    const tally = this.events.get(eid) ?? new EventTally();
    const keys = await listApiKeys(this.db, eid);
    const names = new Map(keys.map((key) => [key.api_key_id, key.scanner_name ?? key.scanner_id]));
    const types = new Set([...tally.issuedByType.keys(), ...tally.checkedInByType.keys()]);
    return {
      eid,
      generated_at: new Date(nowMs).toISOString(),
      totals: { issued: tally.issued, checked_in: tally.checkedIn, revoked: await revokedCount(this.db, eid) },
      by_gate: [...tally.checkedInByGate]
        // A gate whose every check-in was annulled has none left to show.
        .filter(([, checkedIn]) => checkedIn > 0)
        .map(([gate_id, checked_in]) => ({ gate_id, checked_in }))
        .sort((a, b) => compareLabels(a.gate_id, b.gate_id)),
      by_type: [...types]
        .map((ticket_type) => ({
          ticket_type,
          issued: tally.issuedByType.get(ticket_type) ?? 0,
          checked_in: tally.checkedInByType.get(ticket_type) ?? 0,
        }))
        .sort((a, b) => compareLabels(a.ticket_type, b.ticket_type)),
      scans: scanRates(tally.slots, nowMs),
      arrivals: tally.arrivals.view(nowMs),
      scanners: keys.map((key) => this.scannerView(key, nowMs)).sort(scannerOrder),
      alerts: {
        counts: { ...tally.alertCounts },
        recent: await Promise.all(
          tally.alerts
            .slice(-ALERTS_SHOWN)
            .reverse()
            .map((alert) => this.alertView(alert, names)),
        ),
      },
      door: await doorOverview(this.db, eid, [...tally.issuedByType.keys()], tally.offlineSynced),
      activity: {
        annulments: tally.annulments,
        id_not_checked: tally.idNotChecked,
        recent: await Promise.all(
          tally.recentAnnulments
            .slice(-ANNULMENTS_SHOWN)
            .reverse()
            .map((row) => this.annulmentView(row)),
        ),
      },
      complete: this.caughtUp,
    };
  }

  /** The event's door as of now, with the ticket types counted so far. */
  door(eid: string): Promise<DoorOverview> {
    const tally = this.events.get(eid) ?? new EventTally();
    return doorOverview(this.db, eid, [...tally.issuedByType.keys()], tally.offlineSynced);
  }

  /** Holder names per ticket, looked up once (a ticket's holder never changes). */
  private readonly holders = new Map<string, { holder_name: string | null; ticket_type: string | null }>();

  private async annulmentView(row: AnnulmentRow): Promise<AnnulmentView> {
    let holder = this.holders.get(row.tid);
    if (holder === undefined) {
      const ticket = await findLookupRow(this.db, row.tid);
      holder = { holder_name: ticket?.holder_name ?? null, ticket_type: ticket?.ticket_type ?? null };
      this.holders.set(row.tid, holder);
    }
    return {
      id: row.id,
      at: row.recorded_at,
      tid: row.tid,
      ...holder,
      actor: row.actor,
      reason: row.reason,
      annulled_by: await this.staffMember(row.eid, row.staff_id ?? null),
      admitted_by: await this.staffMember(row.eid, row.admitted_staff_id),
    };
  }

  /** Badge holders by event and sid, looked up once (a badge's name and role never change). */
  private readonly staffMembers = new Map<string, StaffMemberView>();

  /** A staff id with its badge's name and role when it is a badge of this event (docs/issuer.md "Admin dashboard"). */
  private async staffMember(eid: string, staffId: string | null): Promise<StaffMemberView | null> {
    if (staffId === null) return null;
    const key = `${eid} ${staffId}`;
    let member = this.staffMembers.get(key);
    if (member === undefined) {
      const badge = await findStaffBadge(this.db, staffId);
      // A kiosk's own staff id may look like anything: it names a badge holder only if it is a badge of this event.
      member =
        badge !== undefined && badge.eid === eid
          ? { staff_id: staffId, name: badge.name, role: badge.role }
          : { staff_id: staffId, name: null, role: null };
      // Unknown ids are looked up again: the badge may be issued later (an import), never the other way round.
      if (member.name !== null) this.staffMembers.set(key, member);
    }
    return member;
  }

  private scannerView(key: ApiKeyRow, nowMs: number): ScannerView {
    const lastContact = Math.max(Date.parse(key.created_at), this.lastScanByKey.get(key.api_key_id) ?? 0);
    return {
      api_key_id: key.api_key_id,
      scanner_id: key.scanner_id,
      scanner_name: key.scanner_name,
      scanner_platform: key.scanner_platform,
      gate_id: key.gate_id,
      enrolled_at: key.created_at,
      expires_at: key.expires_at,
      revoked: key.revoked_at !== null,
      last_contact_at: new Date(lastContact).toISOString(),
      online: isOnline(key, lastContact, nowMs),
      scans: this.scansByKey.get(key.api_key_id) ?? 0,
    };
  }

  private async alertView(alert: AlertRef, names: Map<string, string>): Promise<AlertView> {
    const { scan, kind } = alert;
    if (alert.ticket === undefined) alert.ticket = scan.tid === null ? null : ((await findLookupRow(this.db, scan.tid)) ?? null);
    const ticket = alert.ticket;
    const delay = scanDelayMs(scan);
    const firstCheckIn =
      (kind === 'offline_double_admission' || kind === 'merged_double_admission') && ticket?.checked_in_at
        ? {
            checked_in_at: ticket.checked_in_at,
            gate_id: ticket.checkin_gate_id,
            scanner: ticket.checkin_scanner_name ?? ticket.checkin_scanner_id ?? 'unknown scanner',
          }
        : null;
    return {
      id: scan.id,
      kind,
      at: scan.at,
      scanned_at: scan.scanned_at,
      tid: scan.tid,
      // A forged ticket's claims are not the issuer's: only name the holder of a ticket we really issued under that id.
      holder_name: kind === 'forged_signature' ? null : (ticket?.holder_name ?? null),
      ticket_type: kind === 'forged_signature' ? null : (ticket?.ticket_type ?? null),
      ticket_event_name: kind === 'wrong_event' ? (ticket?.event_name ?? null) : null,
      gate_id: scan.gate_id,
      scanner_id: scan.scanner_id,
      scanner_name: scan.api_key_id === null ? null : (names.get(scan.api_key_id) ?? null),
      api_key_id: scan.api_key_id,
      first_check_in: firstCheckIn,
      delay_seconds: delay === null ? null : Math.round(delay / 1000),
    };
  }
}

/**
 * The event's door (docs/protocol.md "Door operations"): its settings, occupancy from the counter rows, the
 * offline policies of the default and of each ticket type, and each kiosk's offline exposure. `synced`: the
 * offline admissions synced per scanner and type, as the aggregator counted them from the admission history
 * (a GROUP BY over the event's history every refresh would cost what docs/issuer.md "How the figures are
 * kept" avoids; store/door.ts syncedOfflineAdmissions is the same count in one query).
 */
export async function doorOverview(
  db: Sql,
  eid: string,
  ticketTypes: (string | null)[],
  synced: ReadonlyMap<string, ReadonlyMap<string, number>>,
): Promise<DoorOverview> {
  const event = await findEvent(db, eid);
  const policies = await offlinePoliciesOf(db, eid);
  const occupancy = await eventOccupancy(db, eid);
  const types = [...new Set([...ticketTypes.filter((type): type is string => type !== null), ...Object.keys(policies.by_type)])].sort(
    (a, b) => compareLabels(a, b),
  );
  return {
    entry_policy: event?.entry_policy ?? 'single',
    capacity: event?.capacity ?? null,
    occupancy: {
      inside: occupancy.inside,
      capacity: occupancy.capacity,
      level: occupancy.level,
      entries: occupancy.entries,
      exits: occupancy.exits,
      by_gate: occupancy.by_gate.sort((a, b) => compareLabels(a.gate_id, b.gate_id)),
    },
    offline_policies: [
      policyView('', policies.default, true),
      ...types.map((type) => policyView(type, policyForType(policies, type), type in policies.by_type)),
    ],
    kiosks: (await kioskRows(db, eid)).map((row) => kioskView(row, policies, synced.get(row.scanner_id) ?? new Map())),
    exit_all: await exitAllView(db, eid),
  };
}

function policyView(
  ticketType: string,
  policy: { policy: OfflinePolicyView['policy']; per_hour?: number },
  own: boolean,
): OfflinePolicyView {
  return { ticket_type: ticketType, policy: policy.policy, per_hour: policy.per_hour ?? null, own };
}

/** Per-type counts a kiosk reported as JSON; anything unreadable counts as nothing. */
function reportedCounts(json: string | null): Map<string, number> {
  const counts = new Map<string, number>();
  if (json === null) return counts;
  try {
    const parsed = JSON.parse(json) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      for (const [type, value] of Object.entries(parsed))
        if (Number.isSafeInteger(value) && (value as number) > 0) counts.set(type, value as number);
    }
  } catch {
    // A heartbeat row is written by the issuer from a validated body; this only guards a hand-edited database.
  }
  return counts;
}

/** Pure: a kiosk's direction, queue and offline exposure per ticket type against its policy. */
export function kioskView(row: KioskRow, policies: OfflinePolicies, synced: ReadonlyMap<string, number>): KioskView {
  const unsynced = reportedCounts(row.offline_exposure);
  const lastHour = reportedCounts(row.offline_last_hour);
  // Named types in order, tickets without a type ('') last.
  const types = [...new Set([...unsynced.keys(), ...lastHour.keys(), ...synced.keys()])].sort((a, b) =>
    compareLabels(a || null, b || null),
  );
  const exposure: KioskExposureView[] = types.map((type) => {
    const policy = policyForType(policies, type === '' ? null : type);
    const perHour = policy.policy === 'capped' ? (policy.per_hour ?? null) : null;
    const inLastHour = lastHour.get(type) ?? 0;
    return {
      ticket_type: typeKey(type),
      unsynced: unsynced.get(type) ?? 0,
      last_hour: inLastHour,
      synced: synced.get(type) ?? 0,
      policy: policy.policy,
      per_hour: perHour,
      at_cap: perHour !== null && inLastHour >= perHour,
    };
  });
  return {
    api_key_id: row.api_key_id,
    scanner_id: row.scanner_id,
    scanner_name: row.scanner_name,
    gate_id: row.gate_id,
    direction: row.heartbeat_direction ?? row.token_direction,
    last_heartbeat_at: row.reported_at,
    pending_scans: row.pending_scans === null ? null : Number(row.pending_scans),
    clock_offset_ms: row.clock_offset_ms === null ? null : Number(row.clock_offset_ms),
    clock_off: row.clock_offset_ms !== null && Math.abs(Number(row.clock_offset_ms)) > CLOCK_OFF_MS,
    exposure,
  };
}

/** docs/issuer.md "Kiosk clocks": a kiosk whose clock is off by more than this is flagged. */
export const CLOCK_OFF_MS = 60_000;

/** Scans in about the last minute, and per minute for the chart (oldest first, current minute last). Pure. */
export function scanRates(slots: ReadonlyMap<number, number>, nowMs: number): EventOverview['scans'] {
  const currentSlot = Math.floor(nowMs / SLOT_MS) * SLOT_MS;
  const currentMinute = Math.floor(nowMs / 60_000) * 60_000;
  let lastMinute = 0;
  const perMinute = new Map<number, number>();
  for (const [slot, count] of slots) {
    if (slot > currentSlot - SLOTS_PER_MINUTE * SLOT_MS) lastMinute += count;
    bump(perMinute, Math.floor(slot / 60_000) * 60_000, count);
  }
  const series = Array.from({ length: RATE_MINUTES }, (_, i) => {
    const minute = currentMinute - (RATE_MINUTES - 1 - i) * 60_000;
    return { minute: new Date(minute).toISOString(), scans: perMinute.get(minute) ?? 0 };
  });
  return { last_minute: lastMinute, per_minute: series };
}

/** Active scanners first (online, then the most recently heard from), revoked ones last. */
function scannerOrder(a: ScannerView, b: ScannerView): number {
  if (a.revoked !== b.revoked) return a.revoked ? 1 : -1;
  if (a.online !== b.online) return a.online ? -1 : 1;
  return b.last_contact_at.localeCompare(a.last_contact_at);
}

/** Tickets as the dashboard shows them, with their handouts and party read for the whole list (services/ticket-extras.ts). */
export async function ticketViews(db: Sql, rows: readonly LookupRow[], nowMs: number): Promise<TicketView[]> {
  const extras = await ticketExtras(
    db,
    rows.map((row) => ({ ...row, state: row.checkin_state })),
  );
  return rows.map((row) => ticketView(row, nowMs, extras.get(row.tid)));
}

/** One ticket as the dashboard shows it, after a change made to it (it exists: the change found it). */
export async function ticketViewOf(db: Sql, tid: string): Promise<TicketView> {
  return (await ticketViews(db, [(await findLookupRow(db, tid))!], Date.now()))[0]!;
}

/** A ticket as the dashboard shows it (lookups and revocations). */
function ticketView(row: LookupRow, nowMs: number, extras: TicketExtras | undefined): TicketView {
  // ticketState only asks whether there is a check-in, and whether it was annulled.
  const checkin =
    row.checked_in_at === null
      ? undefined
      : ({ tid: row.tid, checked_in_at: row.checked_in_at, state: row.checkin_state ?? 'inside' } as CheckinRow);
  return {
    tid: row.tid,
    eid: row.eid,
    event_name: row.event_name,
    status: ticketState(row, checkin, Math.floor(nowMs / 1000)),
    holder_name: row.holder_name,
    ticket_type: row.ticket_type,
    issued_at: row.issued_at,
    expires_at: new Date(row.exp * 1000).toISOString(),
    checked_in_at: row.checked_in_at,
    checked_in_gate_id: row.checkin_gate_id,
    checked_in_by: row.checkin_scanner_name ?? row.checkin_scanner_id,
    checked_in_staff:
      row.checkin_staff_id === null || row.checkin_staff_id === undefined
        ? null
        : { staff_id: row.checkin_staff_id, name: row.checkin_staff_name ?? null, role: row.checkin_staff_role ?? null },
    presence: row.checkin_state,
    revoked_at: row.revoked_at,
    revoke_reason: row.revoke_reason,
    attention: Number(row.attention ?? 0) === 1,
    note: row.note ?? null,
    door_attention: attentionOf(
      row.type_attention === null ? null : { attention: Number(row.type_attention) === 1, note: row.type_note },
      ticketRuleOf(row),
    ),
    // docs/issuer.md "Admin dashboard": what the status answer carries (docs/protocol.md "Handouts (project
    // extension)", "Party tickets (project extension)"); null: no items, one person.
    handouts: extras?.handouts ?? null,
    party: extras?.party ?? null,
  };
}

/**
 * Door operations beside the check-in itself (docs/protocol.md "Door operations"): the scanner heartbeat,
 * annulment by an administrator (CLI, dashboard), occupancy, and the event's door settings.
 * The scanner's own scans (entries, exits, annulments) are check-ins: services/check-in.ts.
 */
import {
  occupancyLevel,
  type EntryPolicy,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type LogHeadReport,
  type OccupancyLevel,
  type OfflineExposurePolicy,
} from '../../protocol/door.js';
import { rightsOf } from '../../protocol/access.js';
import type { ScannerCredential } from '../auth.js';
import { AdminError } from '../error-catalogue.js';
import { recordKioskHead } from '../store/audit-log.js';
import { recordStaffActions } from '../store/staff-actions.js';
import type { StaffActionReport } from '../../protocol/staff-actions.js';
import { rulesOf } from '../store/check-in-rules.js';
import { appendScanLog, findCheckin, insideNow, type GateOccupancy } from '../store/checkins.js';
import { offlinePoliciesOf, recordHeartbeat, setOfflinePolicy } from '../store/door.js';
import { findEvent, updateEventDoor } from '../store/events.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { findTicket } from '../store/tickets.js';
import { applyEffect } from './check-in.js';
import { applyDueExitAll, exitAllSettingOf } from './exit-all.js';
import type { ExitAllSetting } from '../../protocol/exit-all.js';

/** The heartbeat answer's fields of the setting: absent when the event has none. */
function exitAllFields(setting: ExitAllSetting | null): Pick<HeartbeatResponse, 'exit_all_at' | 'exit_all_time_zone' | 'exit_all_since'> {
  return setting === null ? {} : { exit_all_at: setting.at, exit_all_time_zone: setting.time_zone, exit_all_since: setting.since };
}

/** POST /api/v1/scanners/heartbeat: records what the scanner says of itself, answers its event's door settings. */
export async function heartbeat(database: SqlDatabase, credential: ScannerCredential, body: HeartbeatRequest): Promise<HeartbeatResponse> {
  const now = new Date().toISOString();
  const staffActionsThrough = await database.write(
    heartbeatWrite({
      row: {
        api_key_id: credential.apiKeyId,
        scanner_id: credential.scannerId,
        eid: credential.eid,
        direction: body.direction ?? null,
        pending_scans: body.pending_scans ?? 0,
        offline_exposure: JSON.stringify(body.offline_exposure ?? {}),
        offline_last_hour: JSON.stringify(body.offline_last_hour ?? {}),
        reported_at: now,
        clock_offset_ms: body.clock_offset_ms ?? null,
      },
      logHead: body.log_head ?? null,
      staffActions: body.staff_actions ?? [],
    }),
  );
  const db = database.read;
  const event = await findEvent(db, credential.eid);
  if (!event) throw new Error(`scanner key ${credential.apiKeyId} names unknown event ${credential.eid}`);
  const inside = await insideNow(db, event.eid);
  return {
    eid: event.eid,
    entry_policy: event.entry_policy,
    capacity: event.capacity,
    occupancy: { inside, capacity: event.capacity, level: occupancyLevel(inside, event.capacity) },
    offline_policies: await offlinePoliciesOf(db, event.eid),
    rights: rightsOf(credential.role),
    role: credential.role,
    server_time: now,
    // docs/protocol.md "Check-in rules": the kiosk applies them offline; a change reaches it at its next heartbeat.
    check_in_rules: await rulesOf(db, event.eid),
    // docs/protocol.md "Check-out at a set time": an offline kiosk forgets who it let in before each moment passed.
    ...exitAllFields(await exitAllSettingOf(db, event.eid)),
    // docs/protocol.md "Scanner heartbeat": the kiosk sends none of these staff records again.
    ...(staffActionsThrough === null ? {} : { staff_actions_through: staffActionsThrough }),
  };
}

/**
 * The heartbeat and, when it carries one, the kiosk's log head (docs/issuer.md "Audit: tamper-evident logs"):
 * kept whatever it says, flagged when it contradicts an earlier head of the same scanner. Nothing is refused.
 * Its staff records (validated by the route) are kept once each; the answer's `staff_actions_through` is returned.
 */
export const heartbeatWrite = namedJob(
  'scanner-heartbeat',
  async (
    db,
    args: { row: Parameters<typeof recordHeartbeat>[1]; logHead: LogHeadReport | null; staffActions: readonly StaffActionReport[] },
  ): Promise<number | null> => {
    await recordHeartbeat(db, args.row);
    // A moment passed is recorded before the answer's occupancy is read (docs/protocol.md "Check-out at a set time").
    await applyDueExitAll(db, args.row.eid, new Date(args.row.reported_at));
    if (args.logHead) {
      await recordKioskHead(db, {
        api_key_id: args.row.api_key_id,
        scanner_id: args.row.scanner_id,
        eid: args.row.eid,
        position: args.logHead.position,
        hash: args.logHead.hash,
        reported_at: args.row.reported_at,
      });
    }
    const { api_key_id, scanner_id, eid, reported_at } = args.row;
    return recordStaffActions(db, { api_key_id, scanner_id, eid, received_at: reported_at }, args.staffActions);
  },
);

export interface EventOccupancy {
  eid: string;
  inside: number;
  capacity: number | null;
  level: OccupancyLevel;
  entries: number;
  exits: number;
  by_gate: GateOccupancy[];
}

/**
 * Inside now, per gate and in total, with the capacity (docs/protocol.md "Occupancy"): one statement, the
 * event's counter rows (a few per gate, whatever the event's size) with its capacity.
 */
export async function eventOccupancy(db: Sql, eid: string): Promise<EventOccupancy> {
  const rows = await db.all<{
    capacity: number | null;
    gate_id: string | null;
    inside: number | null;
    entries: number | null;
    exits: number | null;
  }>(
    `SELECT e.capacity AS capacity, o.gate_id AS gate_id, SUM(o.inside) AS inside, SUM(o.entries) AS entries, SUM(o.exits) AS exits
     FROM events e LEFT JOIN occupancy o ON o.eid = e.eid WHERE e.eid = ? GROUP BY e.capacity, o.gate_id ORDER BY o.gate_id`,
    [eid],
  );
  if (rows.length === 0) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer`);
  const capacity = rows[0]!.capacity;
  const byGate: GateOccupancy[] = rows
    .filter((row) => row.gate_id !== null)
    .map((row) => ({
      gate_id: row.gate_id === '' ? null : row.gate_id,
      inside: Number(row.inside),
      entries: Number(row.entries),
      exits: Number(row.exits),
    }));
  const inside = byGate.reduce((sum, gate) => sum + gate.inside, 0);
  return {
    eid,
    inside,
    capacity,
    level: occupancyLevel(inside, capacity),
    entries: byGate.reduce((sum, gate) => sum + gate.entries, 0),
    exits: byGate.reduce((sum, gate) => sum + gate.exits, 0),
    by_gate: byGate,
  };
}

export interface Annulment {
  tid: string;
  status: 'annulled';
  /** The entry time of the check-in that was undone. */
  checked_in_at: string;
  annulled_at: string;
  /** True when it had been annulled already: nothing changed (annulling is idempotent). */
  already: boolean;
}

/**
 * Annuls a ticket's current check-in at any time, as an administrator (docs/protocol.md "Door operations"):
 * never deleted, recorded with who and why; the ticket is usable again.
 */
export const annulCheckInWrite = namedJob(
  'annul-check-in',
  async (db, args: { tid: string; reason: string; actor: 'cli' | 'dashboard'; now: string }): Promise<Annulment> => {
    const ticket = await findTicket(db, args.tid);
    if (!ticket) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${args.tid} at this issuer`);
    const checkin = await findCheckin(db, ticket.tid);
    if (!checkin) throw new AdminError('NOT_CHECKED_IN', `ticket ${ticket.tid} is not checked in: there is nothing to annul`);
    if (checkin.state === 'annulled') {
      return { tid: ticket.tid, status: 'annulled', checked_in_at: checkin.checked_in_at, annulled_at: checkin.state_at, already: true };
    }
    await applyEffect(
      db,
      { kind: 'annul', at: args.now, fromVersion: checkin.version, wasInside: checkin.state === 'inside' },
      {
        ticket,
        checkin,
        scan: { scanner_id: null, gate_id: null, api_key_id: null, idempotency_key: null, recorded_at: args.now },
        actor: args.actor,
        reason: args.reason,
        admittedOffline: false,
        staffId: null,
      },
    );
    // The audit log has every change of a ticket's state, as it has every scan.
    await appendScanLog(db, {
      at: args.now,
      scanned_at: null,
      tid: ticket.tid,
      eid: ticket.eid,
      scanner_id: null,
      api_key_id: null,
      gate_id: null,
      idempotency_key: null,
      outcome: 'annulled',
      details: JSON.stringify({ check: 'annul', actor: args.actor, reason: args.reason }),
    });
    return { tid: ticket.tid, status: 'annulled', checked_in_at: checkin.checked_in_at, annulled_at: args.now, already: false };
  },
);

export function annulCheckIn(database: SqlDatabase, tid: string, reason: string, actor: 'cli' | 'dashboard'): Promise<Annulment> {
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > 200) throw new AdminError('INVALID_REASON', 'give a reason of 1-200 characters (--reason)');
  return database.write(annulCheckInWrite({ tid, reason: trimmed, actor, now: new Date().toISOString() }));
}

/** Changes an event's entry policy and capacity (`event update`, the dashboard). */
export const updateEventDoorWrite = namedJob(
  'update-event-door',
  async (db, args: { eid: string; entryPolicy?: EntryPolicy; capacity?: number | null }) => {
    const change: { entry_policy?: EntryPolicy; capacity?: number | null } = {};
    if (args.entryPolicy !== undefined) change.entry_policy = args.entryPolicy;
    if (args.capacity !== undefined) change.capacity = args.capacity;
    if (!(await updateEventDoor(db, args.eid, change))) throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
    return (await findEvent(db, args.eid))!;
  },
);

/** Sets one ticket type's offline exposure policy ('' = the event default). */
export const setOfflinePolicyWrite = namedJob(
  'set-offline-policy',
  async (db, args: { eid: string; ticketType: string; policy: OfflineExposurePolicy; now: string }) => {
    if (!(await findEvent(db, args.eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
    await setOfflinePolicy(db, args.eid, args.ticketType, args.policy, args.now);
    return offlinePoliciesOf(db, args.eid);
  },
);

/** `online-only`, `offline`, or a number N (capped at N per kiosk per hour): the CLI's and dashboard's spelling. */
export function parseOfflinePolicy(text: string): OfflineExposurePolicy {
  if (text === 'online-only' || text === 'offline') return { policy: text };
  if (/^[1-9]\d{0,6}$/.test(text)) return { policy: 'capped', per_hour: Number(text) };
  throw new AdminError(
    'INVALID_POLICY',
    `offline policy "${text}": use online-only, offline, or a number N (at most N offline admissions per kiosk per hour)`,
  );
}

/**
 * The door settings the issuer keeps beside check-ins (docs/protocol.md "Door operations"): offline
 * exposure policies per event and ticket type, and what each scanner last said of itself.
 */
import type { GateDirection, OfflineExposurePolicy, OfflinePolicies, OfflinePolicyKind } from '../../protocol/door.js';
import type { Sql } from './sql.js';

interface PolicyRow {
  ticket_type: string;
  policy: OfflinePolicyKind;
  cap_per_hour: number | null;
}

/** The event's policies: '' is the default (offline when none is set). */
export async function offlinePoliciesOf(db: Sql, eid: string): Promise<OfflinePolicies> {
  const rows = await db.all<PolicyRow>(
    'SELECT ticket_type, policy, cap_per_hour FROM offline_policies WHERE eid = ? ORDER BY ticket_type',
    [eid],
  );
  const policies: OfflinePolicies = { default: { policy: 'offline' }, by_type: {} };
  for (const row of rows) {
    const policy: OfflineExposurePolicy =
      row.policy === 'capped' ? { policy: 'capped', per_hour: row.cap_per_hour! } : { policy: row.policy };
    if (row.ticket_type === '') policies.default = policy;
    else policies.by_type[row.ticket_type] = policy;
  }
  return policies;
}

/** Sets one type's policy ('' for the event default). */
export async function setOfflinePolicy(
  db: Sql,
  eid: string,
  ticketType: string,
  policy: OfflineExposurePolicy,
  now: string,
): Promise<void> {
  await db.run(
    `INSERT INTO offline_policies (eid, ticket_type, policy, cap_per_hour, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (eid, ticket_type) DO UPDATE SET policy = excluded.policy, cap_per_hour = excluded.cap_per_hour, updated_at = excluded.updated_at`,
    [eid, ticketType, policy.policy, policy.policy === 'capped' ? policy.per_hour! : null, now],
  );
}

export interface HeartbeatRow {
  api_key_id: string;
  scanner_id: string;
  eid: string;
  direction: GateDirection | null;
  pending_scans: number;
  /** JSON: ticket type → offline admissions not yet synced. */
  offline_exposure: string;
  /** JSON: ticket type → offline admissions in the last hour. */
  offline_last_hour: string;
  reported_at: string;
  /** Issuer time minus kiosk time, in ms, as the kiosk measured it (docs/issuer.md "Kiosk clocks"); null: not reported. */
  clock_offset_ms: number | null;
}

export async function recordHeartbeat(db: Sql, row: HeartbeatRow): Promise<void> {
  await db.run(
    `INSERT INTO scanner_heartbeats (api_key_id, scanner_id, eid, direction, pending_scans, offline_exposure, offline_last_hour, reported_at,
                                     clock_offset_ms)
     VALUES (@api_key_id, @scanner_id, @eid, @direction, @pending_scans, @offline_exposure, @offline_last_hour, @reported_at,
             @clock_offset_ms)
     ON CONFLICT (api_key_id) DO UPDATE SET scanner_id = excluded.scanner_id, direction = excluded.direction,
       pending_scans = excluded.pending_scans, offline_exposure = excluded.offline_exposure,
       offline_last_hour = excluded.offline_last_hour, reported_at = excluded.reported_at, clock_offset_ms = excluded.clock_offset_ms`,
    { ...row },
  );
}

export function heartbeatsOf(db: Sql, eid: string): Promise<HeartbeatRow[]> {
  return db.all<HeartbeatRow>('SELECT * FROM scanner_heartbeats WHERE eid = ? ORDER BY reported_at DESC', [eid]);
}

/** Offline admissions synced so far, per scanner and ticket type (entries the kiosk had let in before the issuer answered). */
export function syncedOfflineAdmissions(db: Sql, eid: string): Promise<{ scanner_id: string; ticket_type: string; admissions: number }[]> {
  return db.all(
    `SELECT scanner_id, COALESCE(ticket_type, '') AS ticket_type, COUNT(*) AS admissions FROM admission_events
     WHERE eid = ? AND action = 'entry' AND admitted_offline = 1 GROUP BY scanner_id, COALESCE(ticket_type, '') ORDER BY scanner_id`,
    [eid],
  );
}

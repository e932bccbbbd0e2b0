/**
 * Read-only queries of the after-event report (issuer/services/report.ts, docs/issuer.md "After-event
 * report"). Every one is an aggregate (GROUP BY: a row per minute and gate, per outcome, per distinct delay
 * second) or a keyset page, so an event of any size is never read into memory row by row. The SQL is the
 * common subset of SQLite and PostgreSQL, except the one time difference (delaySeconds).
 */
import type { Dialect, Sql } from './sql.js';
import type { NewScanRow } from './dashboard.js';

export async function ticketTotals(db: Sql, eid: string): Promise<{ issued: number; revoked: number }> {
  const row = await db.get<{ issued: number; revoked: number }>(
    `SELECT COUNT(*) AS issued, COALESCE(SUM(CASE WHEN revoked_at IS NOT NULL THEN 1 ELSE 0 END), 0) AS revoked
     FROM tickets WHERE eid = ?`,
    [eid],
  );
  return { issued: Number(row?.issued ?? 0), revoked: Number(row?.revoked ?? 0) };
}

/** Tickets per admission state now (inside, outside, annulled). */
export function checkinStates(db: Sql, eid: string): Promise<{ state: string; n: number }[]> {
  return db.all<{ state: string; n: number }>(
    `SELECT c.state AS state, COUNT(*) AS n FROM checkins c JOIN tickets t ON t.tid = c.tid WHERE t.eid = ? GROUP BY c.state`,
    [eid],
  );
}

/** Admission events per action: how many, how many admitted offline, how many late (history). */
export function admissionActionCounts(db: Sql, eid: string): Promise<{ action: string; n: number; offline: number; late: number }[]> {
  return db.all(
    `SELECT action, COUNT(*) AS n, COALESCE(SUM(admitted_offline), 0) AS offline, COALESCE(SUM(late), 0) AS late
     FROM admission_events WHERE eid = ? GROUP BY action`,
    [eid],
  );
}

/** Entries and exits per minute (door time, 'YYYY-MM-DDTHH:MM') and gate. */
export function admissionsPerMinute(
  db: Sql,
  eid: string,
): Promise<{ minute: string; gate_id: string | null; action: 'entry' | 'exit'; n: number }[]> {
  return db.all(
    `SELECT SUBSTR(at, 1, 16) AS minute, gate_id, action, COUNT(*) AS n
     FROM admission_events WHERE eid = ? AND action IN ('entry', 'exit')
     GROUP BY SUBSTR(at, 1, 16), gate_id, action`,
    [eid],
  );
}

/** Whole seconds from `from` to `to`, two ISO times the issuer wrote (toISOString), in each dialect. */
export function delaySeconds(dialect: Dialect, to: string, from: string): string {
  return dialect === 'sqlite'
    ? `CAST(ROUND((julianday(${to}) - julianday(${from})) * 86400) AS INTEGER)`
    : `CAST(ROUND(EXTRACT(EPOCH FROM (CAST(${to} AS timestamptz) - CAST(${from} AS timestamptz)))) AS INTEGER)`;
}

/** Offline entries and exits per whole second between the door (at) and the issuer (recorded_at). */
export function offlineSyncDelays(db: Sql, eid: string): Promise<{ seconds: number; n: number }[]> {
  const delay = delaySeconds(db.dialect, 'recorded_at', 'at');
  return db.all(
    `SELECT ${delay} AS seconds, COUNT(*) AS n FROM admission_events
     WHERE eid = ? AND admitted_offline = 1 AND action IN ('entry', 'exit')
     GROUP BY ${delay} ORDER BY 1`,
    [eid],
  );
}

/**
 * The scan log of the event: rows sent by the event's scanner keys, and rows without a key (imports) that
 * name the event. Counted for the event of the key that sent them, as the dashboard does.
 */
const EVENT_SCANS = `scan_log s LEFT JOIN api_keys k ON k.api_key_id = s.api_key_id WHERE COALESCE(k.eid, s.eid) = ?`;

/** Scan attempts per outcome and gate. */
export function scanOutcomes(db: Sql, eid: string): Promise<{ outcome: string; gate_id: string | null; n: number }[]> {
  return db.all(`SELECT s.outcome AS outcome, s.gate_id AS gate_id, COUNT(*) AS n FROM ${EVENT_SCANS} GROUP BY s.outcome, s.gate_id`, [
    eid,
  ]);
}

/** The distinct tickets among the scan attempts of each outcome. */
export function scanOutcomeTickets(db: Sql, eid: string): Promise<{ outcome: string; tickets: number }[]> {
  return db.all(`SELECT s.outcome AS outcome, COUNT(DISTINCT s.tid) AS tickets FROM ${EVENT_SCANS} GROUP BY s.outcome`, [eid]);
}

/** A scan_log row as the report reads it: the dashboard's shape. */
export type ReportScanRow = NewScanRow;

/** One keyset page of the event's scans with one of `outcomes`, by id. */
export function scansWithOutcome(
  db: Sql,
  eid: string,
  outcomes: readonly string[],
  afterId: number,
  limit: number,
): Promise<ReportScanRow[]> {
  return db.all<ReportScanRow>(
    `SELECT s.id, s.at, s.scanned_at, s.tid, s.eid, s.scanner_id, s.api_key_id, s.gate_id, s.outcome
     FROM ${EVENT_SCANS} AND s.outcome IN (${outcomes.map(() => '?').join(', ')}) AND s.id > ? ORDER BY s.id LIMIT ?`,
    [eid, ...outcomes, afterId, limit],
  );
}

export interface ReportKeyRow {
  api_key_id: string;
  scanner_id: string;
  scanner_name: string | null;
  gate_id: string | null;
  created_at: string;
  revoked_at: string | null;
  heartbeat_at: string | null;
}

/** The event's scanner keys (revoked ones too), with their last heartbeat. */
export function eventKeys(db: Sql, eid: string): Promise<ReportKeyRow[]> {
  return db.all<ReportKeyRow>(
    `SELECT k.api_key_id, k.scanner_id, k.scanner_name, k.gate_id, k.created_at, k.revoked_at, h.reported_at AS heartbeat_at
     FROM api_keys k LEFT JOIN scanner_heartbeats h ON h.api_key_id = k.api_key_id
     WHERE k.eid = ? ORDER BY k.created_at, k.api_key_id`,
    [eid],
  );
}

/** One keyset page of contacts (scan requests) from the given keys, by id: when the issuer heard from each. */
export function contactsOfKeys(
  db: Sql,
  keys: readonly string[],
  afterId: number,
  limit: number,
): Promise<{ id: number; at: string; api_key_id: string; scanned_at: string | null }[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return db.all(
    `SELECT id, at, api_key_id, scanned_at FROM scan_log
     WHERE id > ? AND api_key_id IN (${keys.map(() => '?').join(', ')}) ORDER BY id LIMIT ?`,
    [afterId, ...keys, limit],
  );
}

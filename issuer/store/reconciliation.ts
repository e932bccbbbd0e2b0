/** Read-only queries for `checkins export`: every admit and every other logged scan of one event. */
import type { Sql } from './sql.js';

export interface CheckinForExport {
  tid: string;
  eid: string;
  holder_name: string | null;
  ticket_type: string | null;
  checked_in_at: string;
  recorded_at: string;
  scanner_id: string;
  api_key_id: string;
  gate_id: string | null;
  idempotency_key: string;
}

export interface LoggedScanForExport {
  id: number;
  at: string;
  scanned_at: string | null;
  tid: string | null;
  eid: string | null;
  holder_name: string | null;
  ticket_type: string | null;
  scanner_id: string | null;
  api_key_id: string | null;
  gate_id: string | null;
  idempotency_key: string | null;
  outcome: string;
  details: string | null;
}

/** The check-ins of the event's tickets: the authoritative admits (one per ticket). */
export function checkinsOfEvent(db: Sql, eid: string): Promise<CheckinForExport[]> {
  return db.all<CheckinForExport>(
    `SELECT c.tid, t.eid, t.holder_name, t.ticket_type, c.checked_in_at, c.recorded_at, c.scanner_id, c.api_key_id, c.gate_id, c.idempotency_key
     FROM checkins c JOIN tickets t ON t.tid = c.tid
     WHERE t.eid = ? ORDER BY c.recorded_at, c.tid`,
    [eid],
  );
}

/** Scan-log entries made at the event's doors whose outcome is not an admit (refusals, reported bad signatures…). */
export function loggedScansOfEvent(db: Sql, eid: string, admitOutcome: string): Promise<LoggedScanForExport[]> {
  return db.all<LoggedScanForExport>(
    `SELECT s.id, s.at, s.scanned_at, s.tid, s.eid, t.holder_name, t.ticket_type, s.scanner_id, s.api_key_id, s.gate_id, s.idempotency_key, s.outcome, s.details
     FROM scan_log s LEFT JOIN tickets t ON t.tid = s.tid
     WHERE s.eid = ? AND s.outcome <> ? ORDER BY s.id`,
    [eid, admitOutcome],
  );
}

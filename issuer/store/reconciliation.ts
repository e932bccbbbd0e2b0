/**
 * Read-only queries for `checkins export`: every admission (the current one per ticket, and the admission
 * history: exits, re-entries, annulments) and every other logged scan of one event.
 */
import type { Sql } from './sql.js';
import type { AdmissionState } from './checkins.js';
import type { AdmissionEventEntry, ScanLogEntry } from './log-rows.js';

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
  /** The ticket's current admission (docs/protocol.md "Door operations"). */
  state: AdmissionState;
  /** When annulled: the latest annulment's reason. */
  annul_reason: string | null;
  /** Who at the door admitted it: its entry's staff id (docs/issuer.md "Staff roles and badges"). */
  staff_id: string | null;
  /** A manual entry's reason (docs/protocol.md "Ticket search"); null for a scanned entry. */
  entry_reason: string | null;
  /** Its entry's ID check (docs/protocol.md "ID checks (project extension)"): checked, not_checked, or null (none asked). */
  id_check: 'checked' | 'not_checked' | null;
}

/** A logged scan with its ticket's holder and type. */
export type LoggedScanForExport = ScanLogEntry & { holder_name: string | null; ticket_type: string | null };

/** An admission event with its ticket's holder. */
export type AdmissionEventForExport = AdmissionEventEntry & {
  holder_name: string | null;
  /** For an entry that was later annulled (no other entry in between): that annulment's reason, or '' without one. */
  annulled_reason: string | null;
};

/** The check-ins of the event's tickets: each ticket's current admission (one per ticket), with its state. */
export function checkinsOfEvent(db: Sql, eid: string): Promise<CheckinForExport[]> {
  return db.all<CheckinForExport>(
    `SELECT c.tid, t.eid, t.holder_name, t.ticket_type, c.checked_in_at, c.recorded_at, c.scanner_id, c.api_key_id, c.gate_id,
            c.idempotency_key, c.state,
            CASE WHEN c.state = 'annulled' THEN
              (SELECT a.reason FROM admission_events a WHERE a.tid = c.tid AND a.action = 'annul' ORDER BY a.id DESC LIMIT 1)
            END AS annul_reason,
            (SELECT a.staff_id FROM admission_events a
             WHERE a.tid = c.tid AND a.action = 'entry' AND a.idempotency_key = c.idempotency_key ORDER BY a.id DESC LIMIT 1) AS staff_id,
            (SELECT a.reason FROM admission_events a
             WHERE a.tid = c.tid AND a.action = 'entry' AND a.idempotency_key = c.idempotency_key ORDER BY a.id DESC LIMIT 1) AS entry_reason,
            (SELECT a.id_check FROM admission_events a
             WHERE a.tid = c.tid AND a.action = 'entry' AND a.idempotency_key = c.idempotency_key ORDER BY a.id DESC LIMIT 1) AS id_check
     FROM checkins c JOIN tickets t ON t.tid = c.tid
     WHERE t.eid = ? ORDER BY c.recorded_at, c.tid`,
    [eid],
  );
}

/**
 * The event's admission history but the entries its check-ins already show: exits, annulments (who, why), and
 * the other entries (re-entries, late entries, an entry confirmed while inside).
 */
export function admissionHistoryOfEvent(db: Sql, eid: string): Promise<AdmissionEventForExport[]> {
  return db.all<AdmissionEventForExport>(
    `SELECT a.id, a.tid, a.eid, t.holder_name, t.ticket_type, a.action, a.at, a.recorded_at, a.gate_id, a.scanner_id, a.api_key_id,
            a.idempotency_key, a.actor, a.reason, a.late, a.admitted_offline, a.staff_id, a.id_check,
            CASE WHEN a.action = 'entry' AND a.late = 0 THEN
              (SELECT COALESCE(x.reason, '') FROM admission_events x
               WHERE x.tid = a.tid AND x.action = 'annul' AND x.id > a.id
                 AND NOT EXISTS (SELECT 1 FROM admission_events n
                                 WHERE n.tid = a.tid AND n.action = 'entry' AND n.late = 0 AND n.id > a.id AND n.id < x.id)
               ORDER BY x.id LIMIT 1)
            END AS annulled_reason
     FROM admission_events a JOIN tickets t ON t.tid = a.tid LEFT JOIN checkins c ON c.tid = a.tid
     WHERE a.eid = ? AND NOT (a.action = 'entry' AND a.late = 0 AND a.idempotency_key = c.idempotency_key)
     ORDER BY a.id`,
    [eid],
  );
}

/** Scan-log entries made at the event's doors whose outcome is none of `excluded` (refusals, reported bad signatures…). */
export function loggedScansOfEvent(db: Sql, eid: string, excluded: readonly string[]): Promise<LoggedScanForExport[]> {
  return db.all<LoggedScanForExport>(
    `SELECT s.id, s.at, s.scanned_at, s.tid, s.eid, t.holder_name, t.ticket_type, s.scanner_id, s.api_key_id, s.gate_id, s.idempotency_key, s.outcome, s.details
     FROM scan_log s LEFT JOIN tickets t ON t.tid = s.tid
     WHERE s.eid = ? AND s.outcome NOT IN (${excluded.map(() => '?').join(', ')}) ORDER BY s.id`,
    [eid, ...excluded],
  );
}

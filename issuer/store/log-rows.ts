/**
 * The rows of the issuer's two append-only logs, one type each: scan_log, every check-in attempt and its
 * outcome (docs/issuer.md "Audit: tamper-evident logs"), and admission_events, every accepted entry, exit and
 * annulment (docs/protocol.md "Door operations (project extension)"). Their columns are store/columns.ts's. A query that reads
 * part of a row, or joins other columns to it, types its rows from these (Pick, &), so no column is typed twice.
 *
 * A module of its own, imported by the modules that write the logs (checkins.ts, audit-log.ts) and those that
 * read them, so that those two need not import each other.
 */
import type { ScanAction } from '../../protocol/door.js';

/** A scan_log row's content, as a check-in writes it; its chain columns are audit-log.ts's. */
export interface ScanLogRow {
  at: string;
  scanned_at: string | null;
  tid: string | null;
  eid: string | null;
  scanner_id: string | null;
  api_key_id: string | null;
  gate_id: string | null;
  idempotency_key: string | null;
  outcome: string;
  details: string | null;
}

/** A scan_log row as read back, with its id (the order it was written in on this database). */
export type ScanLogEntry = ScanLogRow & { id: number };

/** The scan_log outcome of a double admission found by an import (the dashboard alerts on it, the report lists it). */
export const IMPORT_CONFLICT_OUTCOME = 'import_conflict';

/** One accepted entry, exit or annulment: appended, never changed (docs/protocol.md "One state per ticket, exact under concurrency"). */
export interface AdmissionEventRow {
  tid: string;
  eid: string;
  action: ScanAction;
  /** When it happened at the door (the scan's scanned_at), or the annulment's time. */
  at: string;
  gate_id: string | null;
  scanner_id: string | null;
  api_key_id: string | null;
  idempotency_key: string | null;
  /** scanner:<scanner_id>, cli or dashboard. */
  actor: string;
  reason: string | null;
  /** Older than the state it arrived to: recorded as history, the state unchanged. */
  late: 0 | 1;
  admitted_offline: 0 | 1;
  ticket_type: string | null;
  recorded_at: string;
  /** Who at the door: a staff badge's sid, or the staff id the kiosk sent; null for the CLI and dashboard. */
  staff_id: string | null;
  /** An entry of a type with an ID check (docs/protocol.md "ID checks (project extension)"): checked or not; else null. */
  id_check?: 'checked' | 'not_checked' | null;
  /** The people a party ticket's entry or exit counted (docs/protocol.md "Party tickets (project extension)"); null: one. */
  people?: number | null;
}

/** An admission event as read back, with its id (the order it was written in on this database). */
export type AdmissionEventEntry = AdmissionEventRow & { id: number };

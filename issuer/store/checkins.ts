/** Check-ins, stored idempotent answers and the scan audit log. */
import type { Sql } from './sql.js';

export interface CheckinRow {
  tid: string;
  checked_in_at: string;
  scanner_id: string;
  gate_id: string | null;
  api_key_id: string;
  idempotency_key: string;
  recorded_at: string;
}

export interface StoredAnswer {
  idempotency_key: string;
  request_hash: string;
  http_status: number;
  response_body: string;
  api_key_id: string;
  created_at: string;
}

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

export type ScanLogEntry = ScanLogRow & { id: number };

export function findCheckin(db: Sql, tid: string): Promise<CheckinRow | undefined> {
  return db.get<CheckinRow>('SELECT * FROM checkins WHERE tid = ?', [tid]);
}

/**
 * Inserts the first check-in. The primary key on tid is what guarantees one
 * valid per ticket, ever: a second insert fails instead of silently winning.
 */
export async function insertCheckin(db: Sql, row: CheckinRow): Promise<void> {
  await db.run(
    `INSERT INTO checkins (tid, checked_in_at, scanner_id, gate_id, api_key_id, idempotency_key, recorded_at)
     VALUES (@tid, @checked_in_at, @scanner_id, @gate_id, @api_key_id, @idempotency_key, @recorded_at)`,
    { ...row },
  );
}

export function findStoredAnswer(db: Sql, idempotencyKey: string): Promise<StoredAnswer | undefined> {
  return db.get<StoredAnswer>('SELECT * FROM idempotency WHERE idempotency_key = ?', [idempotencyKey]);
}

export async function insertStoredAnswer(db: Sql, row: StoredAnswer): Promise<void> {
  await db.run(
    `INSERT INTO idempotency (idempotency_key, request_hash, http_status, response_body, api_key_id, created_at)
     VALUES (@idempotency_key, @request_hash, @http_status, @response_body, @api_key_id, @created_at)`,
    { ...row },
  );
}

/** Drops stored answers older than `before` (docs/protocol.md "Precedence": kept at least 7 days). */
export async function pruneStoredAnswers(db: Sql, before: string): Promise<number> {
  return (await db.run('DELETE FROM idempotency WHERE created_at < ?', [before])).changes;
}

export async function appendScanLog(db: Sql, row: ScanLogRow): Promise<void> {
  await db.run(
    `INSERT INTO scan_log (at, scanned_at, tid, eid, scanner_id, api_key_id, gate_id, idempotency_key, outcome, details)
     VALUES (@at, @scanned_at, @tid, @eid, @scanner_id, @api_key_id, @gate_id, @idempotency_key, @outcome, @details)`,
    { ...row },
  );
}

export function scanLogForEvent(db: Sql, eid: string): Promise<ScanLogEntry[]> {
  return db.all<ScanLogEntry>('SELECT * FROM scan_log WHERE eid = ? ORDER BY id', [eid]);
}

export function scanLogByOutcome(db: Sql, outcome: string): Promise<ScanLogEntry[]> {
  return db.all<ScanLogEntry>('SELECT * FROM scan_log WHERE outcome = ? ORDER BY id', [outcome]);
}

/** A stored answer with the scanner of the key that stored it: a replay is honoured for any key of that scanner. */
export function findStoredAnswerWithScanner(db: Sql, idempotencyKey: string): Promise<(StoredAnswer & { scanner_id: string }) | undefined> {
  return db.get<StoredAnswer & { scanner_id: string }>(
    `SELECT i.*, k.scanner_id FROM idempotency i JOIN api_keys k ON k.api_key_id = i.api_key_id
     WHERE i.idempotency_key = ?`,
    [idempotencyKey],
  );
}

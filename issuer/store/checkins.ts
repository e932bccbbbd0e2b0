/** Check-ins, stored idempotent answers and the scan audit log. */
import { prepareCached, type Db } from './database.js';

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

export function findCheckin(db: Db, tid: string): CheckinRow | undefined {
  return prepareCached(db, 'SELECT * FROM checkins WHERE tid = ?').get(tid) as CheckinRow | undefined;
}

/**
 * Inserts the first check-in. The primary key on tid is what guarantees one
 * valid per ticket, ever: a second insert fails instead of silently winning.
 */
export function insertCheckin(db: Db, row: CheckinRow): void {
  prepareCached(
    db,
    `INSERT INTO checkins (tid, checked_in_at, scanner_id, gate_id, api_key_id, idempotency_key, recorded_at)
     VALUES (@tid, @checked_in_at, @scanner_id, @gate_id, @api_key_id, @idempotency_key, @recorded_at)`,
  ).run(row);
}

export function findStoredAnswer(db: Db, idempotencyKey: string): StoredAnswer | undefined {
  return prepareCached(db, 'SELECT * FROM idempotency WHERE idempotency_key = ?').get(idempotencyKey) as StoredAnswer | undefined;
}

export function insertStoredAnswer(db: Db, row: StoredAnswer): void {
  prepareCached(
    db,
    `INSERT INTO idempotency (idempotency_key, request_hash, http_status, response_body, api_key_id, created_at)
     VALUES (@idempotency_key, @request_hash, @http_status, @response_body, @api_key_id, @created_at)`,
  ).run(row);
}

/** Drops stored answers older than `before` (docs/protocol.md "Precedence": kept at least 7 days). */
export function pruneStoredAnswers(db: Db, before: string): number {
  return prepareCached(db, 'DELETE FROM idempotency WHERE created_at < ?').run(before).changes;
}

export function appendScanLog(db: Db, row: ScanLogRow): void {
  prepareCached(
    db,
    `INSERT INTO scan_log (at, scanned_at, tid, eid, scanner_id, api_key_id, gate_id, idempotency_key, outcome, details)
     VALUES (@at, @scanned_at, @tid, @eid, @scanner_id, @api_key_id, @gate_id, @idempotency_key, @outcome, @details)`,
  ).run(row);
}

export function scanLogForEvent(db: Db, eid: string): (ScanLogRow & { id: number })[] {
  return prepareCached(db, 'SELECT * FROM scan_log WHERE eid = ? ORDER BY id').all(eid) as (ScanLogRow & { id: number })[];
}

export function scanLogByOutcome(db: Db, outcome: string): (ScanLogRow & { id: number })[] {
  return prepareCached(db, 'SELECT * FROM scan_log WHERE outcome = ? ORDER BY id').all(outcome) as (ScanLogRow & { id: number })[];
}

/** A stored answer with the scanner of the key that stored it: a replay is honoured for any key of that scanner. */
export function findStoredAnswerWithScanner(db: Db, idempotencyKey: string): (StoredAnswer & { scanner_id: string }) | undefined {
  return prepareCached(
    db,
    `SELECT i.*, k.scanner_id FROM idempotency i JOIN api_keys k ON k.api_key_id = i.api_key_id
     WHERE i.idempotency_key = ?`,
  ).get(idempotencyKey) as (StoredAnswer & { scanner_id: string }) | undefined;
}

/**
 * The offline queue: the scans table's queue_state and retry columns (docs/kiosk.md "Online and offline").
 * A scan waits here, keeping its idempotency key, until the issuer answers it (sync/queue-drain.ts sends it):
 * which scans are due, a retry's backoff, the issuer's final answer, a held scan sent again on a rescan.
 */
import type { IsoDateTime } from '../../../protocol/index.js';
import { appendAudit } from './audit-log.js';
import type { Statements } from './database.js';
import { fromRow, type QueueState, type ScanRow, type StoredScan } from './scans.js';

/** Moves a scan between queue states without touching its verdict. */
export function setQueueState(sql: Statements, idempotencyKey: string, queueState: QueueState): void {
  sql.statement('UPDATE scans SET queue_state = ? WHERE idempotency_key = ?').run(queueState, idempotencyKey);
}

/** The issuer's answer (or final rejection) for a scan, and its audit record. */
export function recordAnswer(
  sql: Statements,
  idempotencyKey: string,
  answer: { status: string; body: unknown; answeredAt: IsoDateTime; final: 'done' | 'failed'; error?: string },
): void {
  sql.transaction(() => {
    sql
      .statement(
        `UPDATE scans SET queue_state = ?, result_status = ?, result = ?, answered_at = ?, last_error = ?, attempts = attempts + 1
           WHERE idempotency_key = ?`,
      )
      .run(answer.final, answer.status, JSON.stringify(answer.body ?? null), answer.answeredAt, answer.error ?? null, idempotencyKey);
    appendAudit(sql, 'answer', idempotencyKey, null, { status: answer.status, final: answer.final }, answer.answeredAt);
  });
}

/** A failed attempt that will be retried: back to the queue, due at `nextAttemptAt`. */
export function recordRetry(sql: Statements, idempotencyKey: string, nextAttemptAt: number, error: string): void {
  sql
    .statement(
      `UPDATE scans SET queue_state = 'pending', attempts = attempts + 1, next_attempt_at = ?, last_error = ?
         WHERE idempotency_key = ?`,
    )
    .run(nextAttemptAt, error, idempotencyKey);
}

/** Queued scans due now, oldest first. */
export function dueScans(sql: Statements, nowMs: number, limit: number): StoredScan[] {
  const rows = sql
    .statement(`SELECT * FROM scans WHERE queue_state = 'pending' AND next_attempt_at <= ? ORDER BY seq LIMIT ?`)
    .all(nowMs, limit) as ScanRow[];
  return rows.map(fromRow);
}

/** When the next queued scan becomes due, or null when the queue is empty. */
export function nextDueAt(sql: Statements): number | null {
  const row = sql.statement(`SELECT MIN(next_attempt_at) AS due FROM scans WHERE queue_state = 'pending'`).get() as {
    due: number | null;
  };
  return row.due;
}

/** Scans that still have to reach the issuer. */
export function pendingCount(sql: Statements): number {
  const row = sql.statement(`SELECT COUNT(*) AS n FROM scans WHERE queue_state IN ('pending', 'sending')`).get() as { n: number };
  return row.n;
}

/** The newest held scan of a ticket (sent again, same key and body, when the ticket is rescanned). */
export function heldScanFor(sql: Statements, tid: string): StoredScan | null {
  const row = sql.statement(`SELECT * FROM scans WHERE tid = ? AND queue_state = 'held' ORDER BY seq DESC LIMIT 1`).get(tid) as
    ScanRow | undefined;
  return row ? fromRow(row) : null;
}

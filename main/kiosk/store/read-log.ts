/**
 * The read log: reads that made no scan of their own (a scanner's repeat read of a code, a calibration), for IT
 * and support (docs/kiosk.md "Double reads", "Calibration"). Each line also appends a record to the audit log
 * (audit-log.ts) in the same transaction. What calibration learned is a setting (settings.ts).
 */
import type { IsoDateTime } from '../../../protocol/index.js';
import type { ScanOrigin } from '../decide/repeat-reads.js';
import { appendAudit } from './audit-log.js';
import type { Statements } from './database.js';

export interface ReadLogEntry {
  seq: number;
  at: IsoDateTime;
  kind: 'repeat_read' | 'calibration' | 'staff_code_ignored';
  origin: ScanOrigin;
  tid: string | null;
  detail: string;
}

/** One line in the read log. `detail` is for people and never holds scanned text (it may be a setup code). */
export function logRead(sql: Statements, entry: Omit<ReadLogEntry, 'seq'>): void {
  sql.transaction(() => {
    sql
      .statement('INSERT INTO read_log (at, kind, origin, tid, detail) VALUES (?, ?, ?, ?, ?)')
      .run(entry.at, entry.kind, entry.origin, entry.tid, entry.detail);
    appendAudit(sql, 'read', null, entry.tid, { kind: entry.kind, origin: entry.origin, detail: entry.detail }, entry.at);
  });
}

/** Newest first. */
export function readLog(sql: Statements, limit: number): ReadLogEntry[] {
  return sql.statement('SELECT seq, at, kind, origin, tid, detail FROM read_log ORDER BY seq DESC LIMIT ?').all(limit) as ReadLogEntry[];
}

/**
 * Puts the rows read back from a damaged kiosk.db into a fresh one (docs/kiosk.md "Storage integrity").
 * store-recovery.ts finds the damage, sets the file aside and reads the rows; this writes them, as they were.
 */
import type { Statements } from './database.js';
import { SCAN_COLUMNS } from './scans.js';
import { saveSettingText } from './settings.js';

/** Rows read back from a damaged file (store-recovery.ts), as SQLite returned them. */
export interface SalvagedRows {
  settings: Array<[string, string]>;
  discovery: Record<string, unknown>[];
  scans: Record<string, unknown>[];
}

/**
 * Puts what was read back from a damaged file into this fresh store, in one
 * transaction. Scans keep their idempotency keys (a queued scan then reaches
 * the issuer exactly once); one in flight at the damage goes back to the
 * queue. Rows the schema would refuse (half-read, mangled) are skipped.
 */
export function restoreSalvaged(sql: Statements, rows: SalvagedRows): void {
  const insertScan = sql.db.prepare(
    `INSERT OR IGNORE INTO scans (${SCAN_COLUMNS.join(', ')}) VALUES (${SCAN_COLUMNS.map(() => '?').join(', ')})`,
  );
  sql.transaction(() => {
    for (const [key, value] of rows.settings) saveSettingText(sql, key, value);
    for (const row of rows.discovery) {
      if (typeof row['iss'] === 'string' && typeof row['document'] === 'string' && typeof row['fetched_at'] === 'number') {
        sql
          .statement('INSERT OR REPLACE INTO discovery (iss, document, fetched_at) VALUES (?, ?, ?)')
          .run(row['iss'], row['document'], row['fetched_at']);
      }
    }
    const scans = [...rows.scans].sort((a, b) => Number(a['seq']) - Number(b['seq']));
    for (const row of scans) {
      const values = SCAN_COLUMNS.map((column) => {
        if (column === 'queue_state' && row[column] === 'sending') return 'pending';
        if (column === 'sent_as_offline') return row[column] ?? 0; // a file from before door operations
        return row[column] ?? null;
      });
      try {
        insertScan.run(...values);
      } catch {
        // A row whose fields came back unusable (the CHECK constraints refuse it): nothing to send.
      }
    }
  });
}

/**
 * The import's rules for the append-only logs (docs/issuer.md "How `import` merges"), apart from merge.ts: the audit
 * log (scan_log) with the double admissions the merge of the check-ins found (merge-checkins.ts), the admission
 * history, the kiosks' chain heads and their staff records. Rows are told apart by fingerprints (compact-set.ts), never held.
 */
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';
import { FingerprintSet } from './compact-set.js';
import { PendingInserts, type KindCounts } from './merge-rows.js';
import { LOG_IDENTITY_COLUMNS, type LogTable, type Row, type TransferStore } from './store.js';

/**
 * The audit log has no shared row id, so a row is "already here" when every
 * column is equal; a double admission is recorded once per (ticket, scan)
 * whichever instance found it. New double admissions are added last.
 */
export async function mergeScanLog(
  store: TransferStore,
  rows: Iterable<Row>,
  conflicts: readonly Row[],
  counts: { scan_log: KindCounts; checkins: KindCounts },
): Promise<void> {
  // Fingerprints, not rows (compact-set.ts): the logs of both sides may be long.
  const seen = new FingerprintSet();
  const recordedConflicts = new FingerprintSet();
  const remember = (row: Row): void => {
    seen.add(rowIdentity(row, 'scan_log'));
    if (row.outcome === IMPORT_CONFLICT_OUTCOME) recordedConflicts.add(conflictKey(row));
  };
  for await (const row of store.logRows('scan_log')) remember(row);
  // Added in the file's order, then the new double admissions: the order the rows had before the port.
  const added = new PendingInserts(store, 'scan_log');
  for (const row of rows) {
    const duplicate =
      seen.has(rowIdentity(row, 'scan_log')) || (row.outcome === IMPORT_CONFLICT_OUTCOME && recordedConflicts.has(conflictKey(row)));
    if (duplicate) counts.scan_log.unchanged++;
    else {
      await added.add(row);
      remember(row);
      counts.scan_log.added++;
    }
  }
  for (const row of conflicts) {
    // Found by an earlier import (here or on the other side): the same double admission, already in the log.
    if (recordedConflicts.has(conflictKey(row))) counts.checkins.unchanged++;
    else {
      await added.add(row);
      remember(row);
      counts.checkins.conflicts++;
    }
  }
  await added.flush();
}

/**
 * An append-only log without rules of its own (the admission history, the kiosks' reported chain heads, their staff
 * records): the union, in the file's order; a row is already here when its LOG_IDENTITY_COLUMNS are equal (every
 * column, but a staff record's time of receipt). A staff record that names a kiosk's record this copy has with
 * other content breaks the table's unique key, which stops the import (IMPORT_CONFLICT, import.ts asImportError).
 */
export async function mergeLog(
  store: TransferStore,
  table: Exclude<LogTable, 'scan_log'>,
  rows: Iterable<Row>,
  counts: KindCounts,
): Promise<void> {
  const seen = new FingerprintSet();
  for await (const row of store.logRows(table)) seen.add(rowIdentity(row, table));
  const added = new PendingInserts(store, table);
  for (const row of rows) {
    if (!seen.add(rowIdentity(row, table))) counts.unchanged++;
    else {
      await added.add(row);
      counts.added++;
    }
  }
  await added.flush();
}

/** What makes two rows of a log the same row (LOG_IDENTITY_COLUMNS), as one string. */
const rowIdentity = (row: Row, table: LogTable): string => JSON.stringify(LOG_IDENTITY_COLUMNS[table].map((c) => row[c] ?? null));

const conflictKey = (row: Row): string => `${String(row.tid)}\n${String(row.idempotency_key)}`;

/**
 * The reconciliation export (`ticket-issuer checkins export`, and the admin
 * dashboard's CSV download): every check-in and every refused or reported
 * scan of an event (spec "Uses: post-event reconciliation"). Admits come from
 * the checkins table (one per ticket, authoritative); the rest from the scan
 * log, without its admits so none is counted twice.
 */
import { formatCsvRow } from '../csv.js';
import type { Sql } from '../store/sql.js';
import { checkinsOfEvent, loggedScansOfEvent } from '../store/reconciliation.js';

export const EXPORT_COLUMNS = [
  'source',
  'at',
  'outcome',
  'tid',
  'eid',
  'holder_name',
  'ticket_type',
  'scanned_at',
  'scanner_id',
  'api_key_id',
  'gate_id',
  'idempotency_key',
  'details',
] as const;

export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | null>;

/** The scan log's outcome for an admit (a CheckInResponse status). */
const ADMIT_OUTCOME = 'valid';

export async function exportRows(db: Sql, eid: string): Promise<ExportRow[]> {
  const admits: ExportRow[] = (await checkinsOfEvent(db, eid)).map((c) => ({
    source: 'checkins',
    at: c.recorded_at,
    outcome: 'checked_in',
    tid: c.tid,
    eid: c.eid,
    holder_name: c.holder_name,
    ticket_type: c.ticket_type,
    scanned_at: c.checked_in_at,
    scanner_id: c.scanner_id,
    api_key_id: c.api_key_id,
    gate_id: c.gate_id,
    idempotency_key: c.idempotency_key,
    details: null,
  }));
  const others: ExportRow[] = (await loggedScansOfEvent(db, eid, ADMIT_OUTCOME)).map((s) => ({
    source: 'scan_log',
    at: s.at,
    outcome: s.outcome,
    tid: s.tid,
    eid: s.eid,
    holder_name: s.holder_name,
    ticket_type: s.ticket_type,
    scanned_at: s.scanned_at,
    scanner_id: s.scanner_id,
    api_key_id: s.api_key_id,
    gate_id: s.gate_id,
    idempotency_key: s.idempotency_key,
    details: s.details,
  }));
  // Stable sort: same-time rows keep admits first, then log order.
  return [...admits, ...others].sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : 0));
}

export const exportCsv = (rows: readonly ExportRow[]): string =>
  [formatCsvRow(EXPORT_COLUMNS), ...rows.map((row) => formatCsvRow(EXPORT_COLUMNS.map((column) => row[column])))].join('\n') + '\n';

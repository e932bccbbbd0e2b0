/**
 * `checkins export`: every check-in and every refused or reported scan of an
 * event, for post-event reconciliation (spec "Uses: post-event reconciliation").
 * Admits come from the checkins table (one per ticket, authoritative); the
 * rest from the scan log, without its admits so none is counted twice.
 */
import type { Command } from 'commander';
import type { Db } from '../store/database.js';
import { checkinsOfEvent, loggedScansOfEvent } from '../store/reconciliation.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { formatCsvRow } from './csv.js';
import { AdminError } from './errors.js';
import { requireEvent, withIssuer } from './issuer-context.js';

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

export function exportRows(db: Db, eid: string): ExportRow[] {
  const admits: ExportRow[] = checkinsOfEvent(db, eid).map((c) => ({
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
  const others: ExportRow[] = loggedScansOfEvent(db, eid, ADMIT_OUTCOME).map((s) => ({
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

export type ExportFormat = 'csv' | 'json';

/** With --json stdout must be one JSON document, so CSV cannot be asked for at the same time. */
export function exportFormat(format: string | undefined, json: boolean): ExportFormat {
  if (format === undefined) return json ? 'json' : 'csv';
  if (format !== 'csv' && format !== 'json') throw new AdminError('INVALID_ARGUMENT', `--format must be csv or json, not "${format}"`);
  if (json && format === 'csv') throw new AdminError('INVALID_ARGUMENT', '--json prints JSON; drop --json to export CSV');
  return format;
}

interface ExportOptions extends CommonOptions {
  event: string;
  format?: string;
}

export function registerExportCommands(program: Command): void {
  const checkins = program.command('checkins').description('check-in records');
  withCommonOptions(
    checkins
      .command('export')
      .description('every check-in and refused scan of an event, for reconciliation')
      .requiredOption('--event <eid>', 'event ID')
      .option('--format <format>', 'csv or json (default: csv, or json with --json)'),
  ).action(
    action<ExportOptions>((options, output) => {
      const format = exportFormat(options.format, output.json);
      return withIssuer(options.data, ({ db }) => {
        requireEvent(db, options.event);
        const rows = exportRows(db, options.event);
        output.log(`${rows.length} row(s) for event ${options.event}.`);
        if (format === 'json' && !output.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
        else output.result(rows, () => exportCsv(rows));
      });
    }),
  );
}

/**
 * `checkins export`: every check-in and every refused or reported scan of an
 * event, for post-event reconciliation. The rows and the CSV are
 * issuer/services/checkins-export.ts, shared with the admin dashboard.
 */
import type { Command } from 'commander';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import type { Sql } from '../store/sql.js';
import { AdminError } from '../error-catalogue.js';
import { exportCsv, exportRows } from '../services/checkins-export.js';
import { annulCheckIn } from '../services/door.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

export type ExportFormat = 'csv' | 'json';

/** With --json stdout must be one JSON document, so CSV cannot be asked for at the same time. */
export function exportFormat(format: string | undefined, json: boolean): ExportFormat {
  if (format === undefined) return json ? 'json' : 'csv';
  if (format !== 'csv' && format !== 'json') throw new AdminError('INVALID_ARGUMENT', `--format must be csv or json, not "${format}"`);
  if (json && format === 'csv') throw new AdminError('INVALID_ARGUMENT', '--json prints JSON; drop --json to export CSV');
  return format;
}

interface AnnulOptions extends CommonOptions {
  reason: string;
}

interface ExportOptions extends CommonOptions {
  event: string;
  format?: string;
}

/**
 * `PARENT export --event EID [--format csv|json]`: an event's records as CSV (or JSON), with their count on stderr.
 * Shared by `checkins export` and `handouts export`.
 */
export function registerEventExport<Row>(
  parent: Command,
  description: string,
  noun: string,
  rowsOf: (read: Sql, eid: string) => Promise<Row[]>,
  csvOf: (rows: Row[]) => string,
): void {
  withCommonOptions(
    parent
      .command('export')
      .description(description)
      .requiredOption('--event <eid>', 'event ID')
      .option('--format <format>', 'csv or json (default: csv, or json with --json)'),
  ).action(
    action<ExportOptions>((options, output) => {
      const format = exportFormat(options.format, output.json);
      return withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const rows = await rowsOf(database.read, options.event);
        output.log(`${rows.length} ${noun} for event ${options.event}.`);
        if (format === 'json' && !output.json) process.stdout.write(`${JSON.stringify(rows)}\n`);
        else output.result(rows, () => csvOf(rows));
      });
    }),
  );
}

export function registerCheckinsCommands(program: Command): void {
  const checkins = program.command('checkins').description('check-in records');
  registerEventExport(checkins, 'every check-in and refused scan of an event, for reconciliation', 'row(s)', exportRows, exportCsv);

  withCommonOptions(
    checkins
      .command('annul')
      .description("undo a ticket's check-in (admitted by mistake): recorded with the reason, never deleted; the ticket can enter again")
      .argument('<tid>', 'ticket ID')
      .requiredOption('--reason <reason>', 'why (kept in the records)'),
  ).action(
    action<AnnulOptions>((options, output, [tid]) =>
      withIssuer(options.data, async ({ database }) => {
        const annulment = await annulCheckIn(database, tid!, options.reason, 'cli');
        output.result(annulment, () =>
          annulment.already
            ? `The check-in of ${annulment.tid} was already annulled at ${annulment.annulled_at}; nothing changed.`
            : `Annulled the check-in of ${annulment.tid} (entered ${annulment.checked_in_at}). The ticket can be scanned in again.`,
        );
      }),
    ),
  );
}

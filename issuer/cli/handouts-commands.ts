/**
 * `handouts export` (docs/issuer.md "Handouts"): every handout the kiosks recorded for an event, given or refused,
 * with when, where and by whom, for reconciliation; `handouts counts`: per item, how many given and refused.
 * docs/protocol.md "Handouts (project extension)".
 */
import type { Command } from 'commander';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { formatCsvRow } from '../csv.js';
import { handoutCounts, handoutsOfEvent, type HandoutRow } from '../store/handouts.js';
import { registerEventExport } from './checkins-commands.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

/** The CSV's columns, in order. */
export const HANDOUT_CSV_COLUMNS = [
  'handout_id',
  'tid',
  'item',
  'status',
  'reason',
  'given_at',
  'received_at',
  'scanner_id',
  'scanner_name',
  'gate_id',
  'staff_id',
] as const;

export function handoutsCsv(rows: readonly HandoutRow[]): string {
  const lines = [HANDOUT_CSV_COLUMNS.join(',')];
  for (const row of rows)
    lines.push(
      formatCsvRow([
        row.hid,
        row.tid,
        row.item,
        row.status,
        row.reason,
        row.given_at,
        row.received_at,
        row.scanner_id,
        row.scanner_name,
        row.gate_id,
        row.staff_id,
      ]),
    );
  return lines.join('\n');
}

export function registerHandoutsCommands(program: Command): void {
  const handouts = program.command('handouts').description('handouts recorded at the door');
  registerEventExport(
    handouts,
    'every handout of an event, given or refused (a second one beyond the count), with when and where',
    'handout(s)',
    handoutsOfEvent,
    handoutsCsv,
  );
  withCommonOptions(
    handouts.command('counts').description('per item: how many given and how many refused').requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<{ event: string } & CommonOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const counts = await handoutCounts(database.read, options.event);
        output.result({ eid: options.event, items: counts }, () =>
          counts.length === 0
            ? 'No handouts recorded.'
            : counts.map((row) => `${row.item}: ${row.given} given, ${row.refused} refused`).join('\n'),
        );
      }),
    ),
  );
}

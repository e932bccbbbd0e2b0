/**
 * `export --to FILE [--event EID]` and `import --from FILE` (beyond the
 * contract's table, following its rules; docs/issuer.md "Moving an issuer to
 * the venue and back"): move an issuer to the venue laptop and back without
 * losing a check-in, on SQLite or PostgreSQL either way. The file, the export,
 * reading the file and the merge are issuer/transfer/file.ts,
 * export.ts, read.ts and import.ts.
 */
import type { Command } from 'commander';
import { withIssuer } from '../admin/issuer-context.js';
import { describeExport, exportIssuer } from '../transfer/export.js';
import { importIssuer } from '../transfer/import.js';
import { describeImport } from '../transfer/import-report.js';
import { checkExportFile } from '../transfer/read.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface ExportOptions extends CommonOptions {
  to: string;
  event?: string;
}

interface ImportOptions extends CommonOptions {
  from: string;
  database?: string;
}

export function registerTransferCommands(program: Command): void {
  withCommonOptions(
    program
      .command('export')
      .description(
        'write the issuer (events, tickets, check-ins, audit log, scanner keys, signing keys) to one SECRET file for import elsewhere',
      )
      .requiredOption('--to <file>', 'a new file (never overwritten); created with mode 0600')
      .option('--event <eid>', 'only this event (and every signing key)'),
  ).action(
    action<ExportOptions>((options, output) =>
      withIssuer(options.data, async (context) => {
        const result = await exportIssuer(context, options.to, options.event ?? null, new Date());
        // The human text says it on stdout; a script's operator still sees it on the terminal.
        if (output.json) output.log(`warning: ${result.file} is secret: ${result.warning}`);
        output.result(result, () => describeExport(result));
      }),
    ),
  );

  withCommonOptions(
    program
      .command('import')
      .description('merge an export of this issuer into the data dir, or create the data dir from it (check-ins are never lost)')
      .requiredOption('--from <file>', 'a file written by "ticket-issuer export"')
      .option(
        '--database <url>',
        'a NEW data dir only, as for init: where its tables go, postgres://USER@HOST:PORT/DB (an existing database without an issuer; the password from PGPASSWORD or ~/.pgpass, never the URL) or sqlite:///absolute/path/issuer.db; default <data>/issuer.db',
      ),
  ).action(
    action<ImportOptions>(async (options, output) => {
      // Pass 1 checks the whole file (nothing is written from a file that fails it); the merge reads it again.
      const file = checkExportFile(options.from);
      const result = await importIssuer(
        options.data,
        file,
        new Date(),
        (total, label) => output.progress(total, label),
        options.database === undefined ? {} : { database: options.database },
      );
      for (const warning of result.warnings) output.log(`warning: ${warning}`);
      output.result(result, () => describeImport(result));
    }),
  );
}

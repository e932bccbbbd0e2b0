/** `backup --to DIR` (beyond the contract's table; docs/issuer.md "Backups"). The copy itself is issuer/admin/backup.ts. */
import type { Command } from 'commander';
import { backupIssuer } from '../admin/backup.js';
import { withIssuer } from '../admin/issuer-context.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface BackupOptions extends CommonOptions {
  to: string;
}

export function registerBackupCommand(program: Command): void {
  withCommonOptions(
    program
      .command('backup')
      .description('copy the data dir (database snapshot, signing keys, TLS certificate); safe while serve runs')
      .requiredOption('--to <dir>', 'a new directory for the backup'),
  ).action(
    action<BackupOptions>((options, output) =>
      withIssuer(options.data, async (context) => {
        const result = await backupIssuer(context, options.to);
        output.result(
          result,
          () =>
            `Backed up ${context.dataDir.root} to ${result.backup} (database snapshot and ${result.files.length} key/certificate file(s)).`,
        );
      }),
    ),
  );
}

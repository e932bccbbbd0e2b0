/**
 * `migrate`: brings the data dir's database to the schema this ticket-issuer
 * knows (docs/issuer.md "Upgrading: migrate"); `serve` refuses to start until
 * it has run. Safe while other processes use the data dir: the migrations run
 * in one write transaction.
 */
import type { Command } from 'commander';
import { migrateDataDir } from '../admin/migrate.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

/** What `migrate --json` prints: the schema version before and after (equal when there was nothing to do). */
export interface MigrateJson {
  from: number;
  to: number;
}

export function registerMigrateCommand(program: Command): void {
  withCommonOptions(program.command('migrate').description("apply the pending schema migrations to the data dir's database")).action(
    action<CommonOptions>(async (options, output) => {
      const { from, to } = await migrateDataDir(options.data);
      const result: MigrateJson = { from, to };
      output.result(result, () =>
        from === to
          ? `The database's schema is at version ${to}: up to date, nothing to do.`
          : `Migrated the database's schema from version ${from} to ${to}.`,
      );
    }),
  );
}

#!/usr/bin/env node
/**
 * ticket-issuer: the issuer's admin CLI (docs/protocol.md "The admin CLI"), the package's `bin`. Each command group lives in
 * issuer/cli/ (parsing and printing) and calls the admin operations in issuer/admin/; this file assembles them and turns
 * command-line errors into the contract's report.
 */
import { Command, CommanderError } from 'commander';
import { newIdFactory } from './admin/ids.js';
import { registerAdminTokenCommands } from './cli/admin-token-command.js';
import { registerAuditCommands } from './cli/audit-command.js';
import { registerBackupCommand } from './cli/backup-command.js';
import { registerCheckinsCommands } from './cli/checkins-commands.js';
import { registerHandoutsCommands } from './cli/handouts-commands.js';
import { registerEventCommands } from './cli/event-commands.js';
import { registerInitCommand } from './cli/init-command.js';
import { registerKeyCommands } from './cli/key-commands.js';
import { registerMigrateCommand } from './cli/migrate-command.js';
import { registerNodeConfigCommand } from './cli/node-config-command.js';
import { reportFailure } from './cli/output.js';
import { registerReportCommand } from './cli/report-command.js';
import { registerScannerCommands } from './cli/scanner-commands.js';
import { registerServeCommand } from './cli/serve-command.js';
import { registerStaffCommands } from './cli/staff-commands.js';
import { registerWebhookCommands } from './cli/webhook-commands.js';
import { registerTicketCommands } from './cli/ticket-commands.js';
import { registerTransferCommands } from './cli/transfer-commands.js';
import { AdminError } from './error-catalogue.js';

export function buildProgram(): Command {
  const program = new Command('ticket-issuer')
    .description('Admin CLI of the ticket issuer: events, tickets, scanners, keys and the HTTP API')
    // Set before any subcommand is added: subcommands inherit both.
    .exitOverride()
    // Errors and help-on-error go through reportFailure instead, as one line (--help itself still prints to stdout).
    .configureOutput({ outputError: () => {}, writeErr: () => {} })
    .showHelpAfterError(false);
  const nextId = newIdFactory();
  registerInitCommand(program);
  registerMigrateCommand(program);
  registerServeCommand(program);
  registerNodeConfigCommand(program);
  registerEventCommands(program, nextId);
  registerTicketCommands(program, nextId);
  registerScannerCommands(program);
  registerStaffCommands(program, nextId);
  registerWebhookCommands(program);
  registerKeyCommands(program);
  registerCheckinsCommands(program);
  registerHandoutsCommands(program);
  registerBackupCommand(program);
  registerAdminTokenCommands(program);
  registerTransferCommands(program);
  registerReportCommand(program);
  registerAuditCommands(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0 and their text already printed.
      if (error.exitCode === 0) return;
      // Commander printed nothing (its error output is silenced): report it the contract's way.
      const message = error.code === 'commander.help' ? 'a command is missing' : error.message.replace(/^error: /, '');
      process.exitCode = reportFailure(new AdminError('USAGE', `${message} (see --help)`), argv.includes('--json'));
      return;
    }
    process.exitCode = reportFailure(error, argv.includes('--json'));
  }
}

await main(process.argv);

#!/usr/bin/env node
/**
 * ticket-issuer: the issuer's admin CLI (docs/protocol.md "The admin CLI"). Each command group lives in issuer/admin/; this file
 * assembles them and turns command-line errors into the contract's report.
 */
import { Command, CommanderError } from 'commander';
import { registerAdminTokenCommands } from './admin/admin-token.js';
import { registerBackupCommand } from './admin/backup.js';
import { AdminError } from './error-catalogue.js';
import { registerEventCommands } from './admin/events.js';
import { registerExportCommands } from './admin/export.js';
import { newIdFactory } from './admin/ids.js';
import { registerInitCommand } from './admin/init.js';
import { registerKeyCommands } from './admin/keys.js';
import { reportFailure } from './admin/output.js';
import { registerScannerCommands } from './admin/scanners.js';
import { registerServeCommand } from './admin/serve.js';
import { registerTicketCommands } from './admin/tickets.js';
import { registerTransferCommands } from './admin/transfer.js';

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
  registerServeCommand(program);
  registerEventCommands(program, nextId);
  registerTicketCommands(program, nextId);
  registerScannerCommands(program);
  registerKeyCommands(program);
  registerExportCommands(program);
  registerBackupCommand(program);
  registerAdminTokenCommands(program);
  registerTransferCommands(program);
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

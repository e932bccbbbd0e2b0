/**
 * The shape every admin command shares (docs/protocol.md "The admin CLI"): `--data DIR` and `--json` on each command, one result on
 * stdout, and any failure turned into the contract's error report.
 */
import type { Command } from 'commander';
import { DEFAULT_DATA_DIR } from '../data-dir.js';
import { createOutput, reportFailure, type Output } from './output.js';

export interface CommonOptions {
  data?: string;
  json?: boolean;
}

export function withCommonOptions(command: Command): Command {
  return command
    .option('--data <dir>', `issuer data directory (default: $TICKET_ISSUER_DATA or ${DEFAULT_DATA_DIR})`)
    .option('--json', 'print exactly one JSON document on stdout; logs go to stderr');
}

/**
 * Wraps a command's handler: builds its Output, and on failure reports the
 * error and sets a non-zero exit code (without process.exit, so stdout is
 * flushed in full even when piped).
 */
export function action<O extends CommonOptions>(
  handler: (options: O, output: Output, args: string[]) => Promise<void> | void,
): (...commanderArgs: unknown[]) => Promise<void> {
  return async (...commanderArgs) => {
    // Commander passes the positional arguments, then the options object, then the Command.
    const command = commanderArgs.at(-1) as Command;
    const options = command.opts<O>();
    // An optional argument left out comes as undefined: it is left out of `args` too.
    const args = commanderArgs
      .slice(0, -2)
      .filter((arg) => arg !== undefined)
      .map(String);
    const output = createOutput(options.json === true);
    try {
      await handler(options, output, args);
    } catch (error) {
      process.exitCode = reportFailure(error, output.json);
    }
  };
}

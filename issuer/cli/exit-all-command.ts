/** `event set --exit-all-at` (docs/issuer.md "Check-out at a set time"). */
import type { Command } from 'commander';
import { withIssuer } from '../admin/issuer-context.js';
import { parseExitAllOptions, setExitAllWrite } from '../services/exit-all.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface SetOptions extends CommonOptions {
  event: string;
  exitAllAt: string;
  timeZone?: string;
}

export function registerExitAllCommand(event: Command): void {
  withCommonOptions(
    event
      .command('set')
      .description('event settings: check everyone inside out at a set time (daily HH:MM, or one moment)')
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--exit-all-at <when>', 'HH:MM every day (local time), an RFC 3339 moment, or none')
      .option('--time-zone <zone>', "IANA time zone of a daily time (default: the event's check-in rules' time zone)"),
  ).action(
    action<SetOptions>((options, output) => {
      // Checked before the database is touched: a typo changes nothing.
      const { at, timeZone } = parseExitAllOptions(options.exitAllAt, options.timeZone);
      return withIssuer(options.data, async ({ database }) => {
        const setting = await database.write(setExitAllWrite({ eid: options.event, at, timeZone, now: new Date().toISOString() }));
        output.result({ eid: options.event, exit_all: setting }, () =>
          setting === null
            ? `Event ${options.event}: no check-out at a set time`
            : /^\d\d:\d\d$/.test(setting.at)
              ? `Event ${options.event}: everyone inside is checked out every day at ${setting.at} (${setting.time_zone})`
              : `Event ${options.event}: everyone inside is checked out at ${setting.at}`,
        );
      });
    }),
  );
}

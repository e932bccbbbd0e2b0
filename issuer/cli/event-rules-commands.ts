/** `event rules set|show|clear` (docs/issuer.md "Check-in rules"). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { AdminError } from '../error-catalogue.js';
import { clearCheckInRulesWrite, describeRules, eventRulesJson, parseRulesFile, setCheckInRulesWrite } from '../services/check-in-rules.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface RulesOptions extends CommonOptions {
  event: string;
  file?: string;
}

export function registerEventRulesCommands(event: Command): void {
  const rules = event.command('rules').description('check-in rules: which ticket types enter at which gate, when, and how often a day');

  withCommonOptions(
    rules
      .command('set')
      .description('sets (replaces) the event’s check-in rules from a JSON file; kiosks get them at their next heartbeat')
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--file <rules.json>', 'the rules file (docs/protocol.md "Check-in rules")'),
  ).action(
    action<RulesOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        // Validated before the database is touched: a typo never replaces working rules.
        const parsed = parseRulesFile(readRulesFile(options.file!), options.file!);
        const json = await database.write(setCheckInRulesWrite({ eid: options.event, rules: parsed, now: new Date().toISOString() }));
        output.result(json, () => describeRules(json));
      }),
    ),
  );

  withCommonOptions(
    rules.command('show').description('shows the event’s check-in rules').requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<RulesOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const json = await eventRulesJson(database.read, options.event);
        output.result(json, () => describeRules(json));
      }),
    ),
  );

  withCommonOptions(
    rules.command('clear').description('removes the event’s check-in rules').requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<RulesOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        const cleared = await database.write(clearCheckInRulesWrite({ eid: options.event }));
        output.result({ eid: options.event, cleared }, () =>
          cleared ? `Check-in rules of event ${options.event} removed.` : `Event ${options.event} had no check-in rules.`,
        );
      }),
    ),
  );
}

function readRulesFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new AdminError('RULES_INVALID', `${path}: cannot read the rules file (${reason})`);
  }
}

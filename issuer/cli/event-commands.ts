/** `event create` and `event list`. The event itself is made by issuer/admin/events.ts. */
import type { Command } from 'commander';
import { createEvent, DEFAULT_EVENT_HOURS, type NewEvent } from '../admin/events.js';
import type { IdFactory } from '../admin/ids.js';
import { withIssuer } from '../admin/issuer-context.js';
import { parseDateTime, parseLabel } from '../admin/validators.js';
import { listEvents, type EventRow } from '../store/events.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

export interface EventJson {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
}

export const eventJson = (row: EventRow): EventJson => ({
  eid: row.eid,
  name: row.name,
  date: row.date,
  venue: row.venue,
  ends_at: row.ends_at,
});

const describeEvent = (e: EventJson): string => `${e.eid}  ${e.name}  ${e.date} → ${e.ends_at}  at ${e.venue}`;

interface CreateOptions extends CommonOptions {
  name: string;
  date: string;
  venue: string;
  ends?: string;
}

export function registerEventCommands(program: Command, nextId: IdFactory): void {
  const event = program.command('event').description('events tickets are issued for');

  withCommonOptions(
    event
      .command('create')
      .description('create an event')
      .requiredOption('--name <name>', 'event name printed on tickets')
      .requiredOption('--date <iso>', 'start, ISO 8601 with time zone, e.g. 2026-05-01T19:30:00Z')
      .requiredOption('--venue <venue>', 'venue printed on tickets')
      .option('--ends <iso>', `end (default: start + ${DEFAULT_EVENT_HOURS} h)`),
  ).action(
    action<CreateOptions>((options, output) => {
      const input: NewEvent = {
        name: parseLabel(options.name, '--name'),
        date: parseDateTime(options.date, '--date'),
        venue: parseLabel(options.venue, '--venue'),
      };
      if (options.ends !== undefined) input.ends = parseDateTime(options.ends, '--ends');
      return withIssuer(options.data, async ({ database }) => {
        const created = eventJson(await createEvent(database, input, nextId, new Date()));
        output.result(created, () => `Created event ${describeEvent(created)}`);
      });
    }),
  );

  withCommonOptions(event.command('list').description('list events')).action(
    action<CommonOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        const events = (await listEvents(database.read)).map(eventJson);
        output.result({ events }, () => (events.length === 0 ? 'No events yet.' : events.map(describeEvent).join('\n')));
      }),
    ),
  );
}

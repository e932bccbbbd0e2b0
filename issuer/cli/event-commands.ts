/** `event create` and `event list`. The event itself is made by issuer/admin/events.ts. */
import type { Command } from 'commander';
import { createEvent, DEFAULT_EVENT_HOURS, type NewEvent } from '../admin/events.js';
import type { IdFactory } from '../admin/ids.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { MAX_EVENT_CAPACITY, parseDateTime, parseInteger, parseLabel } from '../admin/validators.js';
import type { EntryPolicy, OfflineExposurePolicy } from '../../protocol/door.js';
import { AdminError } from '../error-catalogue.js';
import { eventOccupancy, parseOfflinePolicy, setOfflinePolicyWrite, updateEventDoorWrite, type EventOccupancy } from '../services/door.js';
import { settleExitAll } from '../services/exit-all.js';
import { offlinePoliciesOf } from '../store/door.js';
import { listEvents, type EventRow } from '../store/events.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { registerEventRulesCommands } from './event-rules-commands.js';
import { registerTicketTypeCommands } from './ticket-type-commands.js';
import { registerExitAllCommand } from './exit-all-command.js';

export interface EventJson {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
  /**
   * docs/protocol.md "Door operations": only for an event that uses them (re-entry or a capacity), so an
   * event that does not prints exactly the contract's five fields.
   */
  entry_policy?: EntryPolicy;
  capacity?: number | null;
}

export const eventJson = (row: EventRow): EventJson => {
  const json: EventJson = { eid: row.eid, name: row.name, date: row.date, venue: row.venue, ends_at: row.ends_at };
  if (row.entry_policy !== 'single' || row.capacity !== null) {
    json.entry_policy = row.entry_policy;
    json.capacity = row.capacity;
  }
  return json;
};

const describeEvent = (e: EventJson): string =>
  `${e.eid}  ${e.name}  ${e.date} → ${e.ends_at}  at ${e.venue}` +
  (e.entry_policy === undefined
    ? ''
    : `  (${e.entry_policy === 'reentry' ? 're-entry allowed' : 'single entry'}${e.capacity == null ? '' : `, capacity ${e.capacity}`})`);

interface DoorOptions {
  entry?: string;
  capacity?: string;
}

interface CreateOptions extends CommonOptions, DoorOptions {
  name: string;
  date: string;
  venue: string;
  ends?: string;
}

interface UpdateOptions extends CommonOptions, DoorOptions {}

interface PolicyOptions extends CommonOptions {
  event: string;
  type?: string;
}

function parseEntryPolicy(value: string): EntryPolicy {
  if (value === 'single' || value === 'reentry') return value;
  throw new AdminError('INVALID_ARGUMENT', `--entry must be single or reentry, not "${value}"`);
}

/** `--capacity N`, or `none` to remove it. */
function parseCapacity(value: string): number | null {
  return value === 'none' ? null : parseInteger(value, '--capacity', 1, MAX_EVENT_CAPACITY);
}

const describePolicy = (p: OfflineExposurePolicy): string =>
  p.policy === 'capped'
    ? `offline, at most ${p.per_hour} per kiosk per hour`
    : p.policy === 'online-only'
      ? 'online only'
      : 'offline allowed';

const describeOccupancy = (o: EventOccupancy): string =>
  [
    `Inside now: ${o.inside}${o.capacity === null ? '' : ` of ${o.capacity} (${Math.round((o.inside / o.capacity) * 100)}%)`}` +
      (o.level === 'full' ? '  FULL' : o.level === 'nearly_full' ? '  nearly full' : ''),
    `Entries ${o.entries}, exits ${o.exits}`,
    ...o.by_gate.map((g) => `  gate ${g.gate_id ?? '(none)'}: inside ${g.inside} (entered here), entries ${g.entries}, exits ${g.exits}`),
  ].join('\n');

const doorOptions = (command: Command): Command =>
  command
    .option('--entry <policy>', 'single (one entry, the default) or reentry (in again after an exit scan)')
    .option('--capacity <n>', 'people inside at once: entry kiosks refuse "venue full" at it (none: no limit)');

export function registerEventCommands(program: Command, nextId: IdFactory): void {
  const event = program.command('event').description('events tickets are issued for');
  registerEventRulesCommands(event);
  registerTicketTypeCommands(event);
  registerExitAllCommand(event);

  withCommonOptions(
    doorOptions(
      event
        .command('create')
        .description('create an event')
        .requiredOption('--name <name>', 'event name printed on tickets')
        .requiredOption('--date <iso>', 'start, ISO 8601 with time zone, e.g. 2026-05-01T19:30:00Z')
        .requiredOption('--venue <venue>', 'venue printed on tickets')
        .option('--ends <iso>', `end (default: start + ${DEFAULT_EVENT_HOURS} h)`),
    ),
  ).action(
    action<CreateOptions>((options, output) => {
      const input: NewEvent = {
        name: parseLabel(options.name, '--name'),
        date: parseDateTime(options.date, '--date'),
        venue: parseLabel(options.venue, '--venue'),
      };
      if (options.ends !== undefined) input.ends = parseDateTime(options.ends, '--ends');
      if (options.entry !== undefined) input.entryPolicy = parseEntryPolicy(options.entry);
      if (options.capacity !== undefined) input.capacity = parseCapacity(options.capacity);
      return withIssuer(options.data, async ({ database }) => {
        const created = eventJson(await createEvent(database, input, nextId, new Date()));
        output.result(created, () => `Created event ${describeEvent(created)}`);
      });
    }),
  );

  withCommonOptions(
    doorOptions(event.command('update').description("change an event's entry policy or capacity").argument('<eid>', 'event ID')),
  ).action(
    action<UpdateOptions>((options, output, [eid]) => {
      if (options.entry === undefined && options.capacity === undefined) {
        throw new AdminError('INVALID_ARGUMENT', 'nothing to change: give --entry and/or --capacity');
      }
      const change: { eid: string; entryPolicy?: EntryPolicy; capacity?: number | null } = { eid: eid! };
      if (options.entry !== undefined) change.entryPolicy = parseEntryPolicy(options.entry);
      if (options.capacity !== undefined) change.capacity = parseCapacity(options.capacity);
      return withIssuer(options.data, async ({ database }) => {
        const updated = eventJson(await database.write(updateEventDoorWrite(change)));
        output.result(updated, () => `Updated event ${describeEvent(updated)}`);
      });
    }),
  );

  withCommonOptions(
    event
      .command('offline-policy')
      .description('what kiosks may admit while they cannot reach the issuer: online-only, offline, or N per kiosk per hour')
      .requiredOption('--event <eid>', 'event ID')
      .option('--type <type>', 'this ticket type only (default: the event default, for types without their own)')
      .argument('[policy]', 'online-only | offline | N (a number); omit to show the current policies'),
  ).action(
    action<PolicyOptions>((options, output, [policyText]) =>
      withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const policies =
          policyText === undefined
            ? await offlinePoliciesOf(database.read, options.event)
            : await database.write(
                setOfflinePolicyWrite({
                  eid: options.event,
                  ticketType: options.type === undefined ? '' : parseLabel(options.type, '--type'),
                  policy: parseOfflinePolicy(policyText),
                  now: new Date().toISOString(),
                }),
              );
        output.result({ eid: options.event, ...policies }, () =>
          [
            `Default: ${describePolicy(policies.default)}`,
            ...Object.entries(policies.by_type).map(([type, p]) => `${type}: ${describePolicy(p)}`),
          ].join('\n'),
        );
      }),
    ),
  );

  withCommonOptions(
    event.command('occupancy').description('people inside now, per gate and in total').requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<PolicyOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        await settleExitAll(database, options.event);
        const occupancy = await eventOccupancy(database.read, options.event);
        output.result(occupancy, () => describeOccupancy(occupancy));
      }),
    ),
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

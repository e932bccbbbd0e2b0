/**
 * `event ticket-type set` and `event ticket-type list`: a ticket type's attention flag and check-in note
 * (docs/protocol.md "Attention notes (project extension)"), for every ticket of the type, before the ticket's own.
 */
import type { Command } from 'commander';
import type { TypeRule } from '../../protocol/attention.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { parseLabel, parseNote } from '../admin/validators.js';
import { AdminError } from '../error-catalogue.js';
import { setTicketTypeAttentionWrite } from '../services/attention-notes.js';
import { typeRulesOf, type AttentionChange } from '../store/attention-notes.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface TypeSetOptions extends CommonOptions {
  event: string;
  type: string;
  attention?: boolean;
  note?: string | false;
}

interface TypeListOptions extends CommonOptions {
  event: string;
}

const describeRules = (types: TypeRule[]): string =>
  types.length === 0
    ? 'No ticket type has a flag or a note.'
    : types
        .map((t) => `${t.ticket_type}: ${t.attention ? 'ATTENTION' : 'no flag'}${t.note === null ? '' : `, note "${t.note}"`}`)
        .join('\n');

export function registerTicketTypeCommands(event: Command): void {
  const ticketType = event.command('ticket-type').description("a ticket type's attention flag and check-in note");

  withCommonOptions(
    ticketType
      .command('set')
      .description("set a type's attention flag and/or note (kiosks hear of it at their next sync)")
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--type <type>', 'ticket type label, e.g. VIP')
      .option('--attention', 'door staff must look at every ticket of this type')
      .option('--no-attention', 'clear the flag')
      .option('--note <text>', 'a short note shown at the door for every ticket of this type')
      .option('--no-note', 'remove the note'),
  ).action(
    action<TypeSetOptions>((options, output) => {
      const type = parseLabel(options.type, '--type');
      const change: AttentionChange = {};
      if (options.attention !== undefined) change.attention = options.attention;
      if (options.note === false) change.note = null;
      else if (options.note !== undefined) change.note = parseNote(options.note, '--note');
      if (Object.keys(change).length === 0)
        throw new AdminError('INVALID_ARGUMENT', 'nothing to change: give --attention, --no-attention, --note or --no-note');
      return withIssuer(options.data, async ({ database }) => {
        const types = await database.write(
          setTicketTypeAttentionWrite({ eid: options.event, ticketType: type, change, now: new Date().toISOString() }),
        );
        output.result({ eid: options.event, types }, () => describeRules(types));
      });
    }),
  );

  withCommonOptions(
    ticketType.command('list').description("the event's ticket types with a flag or a note").requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<TypeListOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const types = await typeRulesOf(database.read, options.event);
        output.result({ eid: options.event, types }, () => describeRules(types));
      }),
    ),
  );
}

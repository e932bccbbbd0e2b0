/**
 * `event ticket-type set` and `event ticket-type list`: a ticket type's attention flag and check-in note
 * (docs/protocol.md "Attention notes (project extension)"), for every ticket of the type, before the ticket's own.
 */
import type { Command } from 'commander';
import type { TypeRule } from '../../protocol/attention.js';
import { parseIdCheck, type IdCheckRule } from '../../protocol/id-check.js';
import { setTicketTypeIdCheckWrite } from '../services/id-checks.js';
import { typeIdChecksOf, type TypeIdCheck } from '../store/id-checks.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { parseHandoutOptions, parseLabel, parseNote } from '../admin/validators.js';
import { formatHandouts } from '../../protocol/handouts.js';
import { setTicketTypeHandoutsWrite } from '../services/handouts.js';
import { typeHandoutListsOf, type TypeHandouts } from '../store/handouts.js';
import { AdminError } from '../error-catalogue.js';
import { setTicketTypeAttentionWrite } from '../services/attention-notes.js';
import { typeRulesOf, type AttentionChange } from '../store/attention-notes.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface TypeSetOptions extends CommonOptions {
  event: string;
  type: string;
  attention?: boolean;
  note?: string | false;
  idCheck?: string;
  /** --handout, repeatable: the type's items (replacing them); --no-handouts: none. */
  handout?: string[];
  handouts?: boolean;
}

interface TypeListOptions extends CommonOptions {
  event: string;
}

const describeRules = (types: TypeRule[], idChecks: TypeIdCheck[], handouts: TypeHandouts[]): string => {
  const names = [
    ...new Set([...types.map((t) => t.ticket_type), ...idChecks.map((c) => c.ticket_type), ...handouts.map((h) => h.ticket_type)]),
  ].sort();
  if (names.length === 0) return 'No ticket type has a flag, a note, an ID check or handouts.';
  return names
    .map((name) => {
      const t = types.find((rule) => rule.ticket_type === name);
      const check = idChecks.find((rule) => rule.ticket_type === name);
      const parts = [t?.attention ? 'ATTENTION' : 'no flag'];
      if (t !== undefined && t.note !== null) parts.push(`note "${t.note}"`);
      parts.push(`ID check ${check?.id_check ?? 'none'}`);
      const items = handouts.find((list) => list.ticket_type === name)?.items ?? [];
      parts.push(`handouts ${items.length === 0 ? 'none' : formatHandouts(items)}`);
      return `${name}: ${parts.join(', ')}`;
    })
    .join('\n');
};

function parseIdCheckOption(value: string): IdCheckRule {
  const rule = parseIdCheck(value);
  if (rule === null)
    throw new AdminError('INVALID_ARGUMENT', `--id-check must be none, name or age:N (N whole years 1 to 120), e.g. age:18`);
  return rule;
}

export function registerTicketTypeCommands(event: Command): void {
  const ticketType = event.command('ticket-type').description("a ticket type's attention flag, check-in note, ID check and handouts");

  withCommonOptions(
    ticketType
      .command('set')
      .description("set a type's attention flag and/or note (kiosks hear of it at their next sync)")
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--type <type>', 'ticket type label, e.g. VIP')
      .option('--attention', 'door staff must look at every ticket of this type')
      .option('--no-attention', 'clear the flag')
      .option('--note <text>', 'a short note shown at the door for every ticket of this type')
      .option('--no-note', 'remove the note')
      .option('--id-check <check>', 'none, name or age:N: the steward checks an ID before admitting (e.g. age:18)')
      .option(
        '--handout <item>',
        'an item every ticket of this type gets at the door, with a count: "wristband", "2 drink voucher" (repeat for more; replaces the list)',
        (value: string, previous: string[]) => [...previous, value],
        [],
      )
      .option('--no-handouts', "remove the type's handout items"),
  ).action(
    action<TypeSetOptions>((options, output) => {
      const type = parseLabel(options.type, '--type');
      const change: AttentionChange = {};
      if (options.attention !== undefined) change.attention = options.attention;
      if (options.note === false) change.note = null;
      else if (options.note !== undefined) change.note = parseNote(options.note, '--note');
      const idCheck = options.idCheck === undefined ? undefined : parseIdCheckOption(options.idCheck);
      if (options.handouts === false && (options.handout ?? []).length > 0)
        throw new AdminError('INVALID_ARGUMENT', '--handout and --no-handouts cannot go together');
      const handoutItems =
        options.handouts === false
          ? []
          : (options.handout ?? []).length > 0
            ? parseHandoutOptions(options.handout!, '--handout', 1)
            : undefined;
      if (Object.keys(change).length === 0 && idCheck === undefined && handoutItems === undefined)
        throw new AdminError(
          'INVALID_ARGUMENT',
          'nothing to change: give --attention, --no-attention, --note, --no-note, --id-check, --handout or --no-handouts',
        );
      return withIssuer(options.data, async ({ database }) => {
        const now = new Date().toISOString();
        const idChecks =
          idCheck === undefined
            ? await typeIdChecksOf(database.read, options.event)
            : await database.write(setTicketTypeIdCheckWrite({ eid: options.event, ticketType: type, rule: idCheck, now }));
        const types =
          Object.keys(change).length === 0
            ? await typeRulesOf(database.read, options.event)
            : await database.write(setTicketTypeAttentionWrite({ eid: options.event, ticketType: type, change, now }));
        const handouts =
          handoutItems === undefined
            ? await typeHandoutListsOf(database.read, options.event)
            : await database.write(setTicketTypeHandoutsWrite({ eid: options.event, ticketType: type, items: handoutItems, now }));
        output.result({ eid: options.event, types, id_checks: idChecks, handouts }, () => describeRules(types, idChecks, handouts));
      });
    }),
  );

  withCommonOptions(
    ticketType
      .command('list')
      .description("the event's ticket types with a flag, a note or an ID check")
      .requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<TypeListOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        await requireEvent(database.read, options.event);
        const types = await typeRulesOf(database.read, options.event);
        const idChecks = await typeIdChecksOf(database.read, options.event);
        const handouts = await typeHandoutListsOf(database.read, options.event);
        output.result({ eid: options.event, types, id_checks: idChecks, handouts }, () => describeRules(types, idChecks, handouts));
      }),
    ),
  );
}

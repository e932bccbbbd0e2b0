/**
 * `ticket issue`, `ticket import`, `ticket revoke`, `ticket update`, `ticket show` (docs/protocol.md "The admin CLI").
 * Issuance itself is issuer/admin/issuance.ts, the CSV rows issuer/admin/ticket-csv.ts.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Attention } from '../../protocol/attention.js';
import type { TicketStatus } from '../../protocol/types.js';
import type { IdFactory } from '../admin/ids.js';
import { defaultTicketExpiry, issueForEvent, type TicketSpec } from '../admin/issuance.js';
import { requireTicket, withIssuer, type IssuerContext } from '../admin/issuer-context.js';
import { terminalQr } from '../admin/qr.js';
import { ticketSpecsFromCsv } from '../admin/ticket-csv.js';
import {
  exportTickets,
  PAGE_NAMES,
  parsePageSize,
  parseTicketExportFormat,
  parseTimeZone,
  TICKET_EXPORT_FORMATS,
  type TicketExportResult,
} from '../admin/ticket-export.js';
import { parseDateTime, parseHandoutOptions, parseInteger, parseLabel, parseNote } from '../admin/validators.js';
import { formatHandouts, remainingOf, type Handout } from '../../protocol/handouts.js';
import { handoutsForTicket, updateTicketHandoutsWrite } from '../services/handouts.js';
import { AdminError } from '../error-catalogue.js';
import { revokeTicketById } from '../services/admin-actions.js';
import { attentionForTicket, updateTicketAttentionWrite, type TicketAttentionJson } from '../services/attention-notes.js';
import { idCheckForTicket, updateTicketDobWrite } from '../services/id-checks.js';
import { idCheckLine, parseDob, type IdCheck } from '../../protocol/id-check.js';
import type { AttentionChange } from '../store/attention-notes.js';
import { ticketStatus } from '../services/ticket-status.js';
import { partyOfTicket, updateTicketPartyWrite } from '../services/party.js';
import { MAX_PARTY, parsePartySize, type PartyState } from '../../protocol/party.js';
import { findCheckin } from '../store/checkins.js';
import type { EventRow } from '../store/events.js';
import type { TicketRow } from '../store/tickets.js';
import { unixSeconds } from '../time.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import type { Output } from './output.js';

/** Bounded so one command cannot fill the disk by a typo; larger runs can be split. */
export const MAX_TICKETS_PER_COMMAND = 1_000_000;

export interface IssuedTicketsJson {
  tickets: { tid: string; qr: string }[];
}

/** Issues the tickets with a progress bar for a person, and says what was issued. */
async function issueWithOutput(
  context: IssuerContext,
  eid: string,
  specs: (event: EventRow) => TicketSpec[],
  nextId: IdFactory,
  output: Output,
): Promise<IssuedTicketsJson> {
  const { event, kid, tickets } = await issueForEvent(context, eid, specs, nextId, new Date(), (total, label) =>
    output.progress(total, label),
  );
  output.log(`Issued ${tickets.length} ticket(s) for "${event.name}" (${event.eid}) with key ${kid}.`);
  return { tickets: tickets.map((ticket) => ({ tid: ticket.tid, qr: ticket.qr })) };
}

const ticketLines = (result: IssuedTicketsJson): string => result.tickets.map((t) => `${t.tid}\t${t.qr}`).join('\n');

export function ticketShowJson(ticket: TicketRow, status: TicketStatus): TicketStatus & { qr: string } {
  return { ...status, qr: ticket.qr };
}

interface IssueOptions extends CommonOptions {
  event: string;
  holder?: string;
  type?: string;
  count?: string;
  expires?: string;
  attention?: boolean;
  note?: string;
  dob?: string;
  party?: string;
  /** --handout, repeatable. */
  handout?: string[];
}

interface UpdateOptions extends CommonOptions {
  /** --party N: how many people the ticket admits. */
  party?: string;
  /** --handout, repeatable: the ticket's own items (replacing them); --no-handouts: none. */
  handout?: string[];
  handouts?: boolean;
  /** --dob YYYY-MM-DD: the date, --no-dob: false. */
  dob?: string | false;
  /** --attention: true, --no-attention: false, neither: undefined. */
  attention?: boolean;
  /** --note TEXT: the text, --no-note: false. */
  note?: string | false;
}

interface ImportOptions extends CommonOptions {
  event: string;
  csv: string;
}

interface ExportOptions extends CommonOptions {
  event: string;
  out: string;
  format: string;
  page: string;
  tz: string;
  tid?: string[];
}

interface RevokeOptions extends CommonOptions {
  reason?: string;
}

/** `--party`: how many people the ticket admits (docs/protocol.md "Party tickets (project extension)"). */
function parsePartyOption(value: string): number {
  const size = parsePartySize(value);
  if (size === null)
    throw new AdminError('INVALID_ARGUMENT', `--party must be how many people the ticket admits, a whole number 1 to ${MAX_PARTY}`);
  return size;
}

/** `--dob`: a real calendar day, YYYY-MM-DD, not in the future. */
function parseDobOption(value: string, flag: string): string {
  const dob = parseDob(value, new Date().toISOString().slice(0, 10));
  if (dob === null)
    throw new AdminError('INVALID_ARGUMENT', `${flag} must be a date of birth YYYY-MM-DD, not in the future, e.g. 1990-12-10`);
  return dob;
}

export function registerTicketCommands(program: Command, nextId: IdFactory): void {
  const ticket = program.command('ticket').description('issue, import, revoke and show tickets');

  withCommonOptions(
    ticket
      .command('issue')
      .description('issue and sign tickets (default expiry: event end + 12 h)')
      .requiredOption('--event <eid>', 'event ID')
      .option('--holder <name>', 'holder display name (keep it short)')
      .option('--type <type>', 'ticket type label, e.g. VIP')
      .option('--count <n>', 'number of tickets', '1')
      .option('--expires <iso>', 'ticket expiry, ISO 8601 with time zone')
      .option('--attention', 'door staff must look at this person (an attention flag, not in the QR)')
      .option('--note <text>', 'a short check-in note shown at the door (not in the QR)')
      .option('--dob <YYYY-MM-DD>', "the holder's date of birth for an age check (stays on the issuer: not in the QR)")
      .option('--party <n>', `how many people each ticket admits, 1 to ${MAX_PARTY} (stays on the issuer: not in the QR)`)
      .option(
        '--handout <item>',
        'an item the door hands over, with a count: "wristband", "2 drink voucher" (repeat for more; "0 ITEM" takes a type\'s item away)',
        collect,
        [],
      ),
  ).action(
    action<IssueOptions>((options, output) => {
      const party = options.party === undefined ? undefined : parsePartyOption(options.party);
      const handouts = parseHandoutOptions(options.handout ?? [], '--handout', 0);
      const dob = options.dob === undefined ? undefined : parseDobOption(options.dob, '--dob');
      const count = parseInteger(options.count ?? '1', '--count', 1, MAX_TICKETS_PER_COMMAND);
      const holderName = options.holder === undefined ? undefined : parseLabel(options.holder, '--holder');
      const ticketType = options.type === undefined ? undefined : parseLabel(options.type, '--type');
      const expires = options.expires === undefined ? undefined : unixSeconds(parseDateTime(options.expires, '--expires'));
      const note = options.note === undefined ? undefined : parseNote(options.note, '--note');
      return withIssuer(options.data, async (context) => {
        const result = await issueWithOutput(
          context,
          options.event,
          (event) => {
            const spec: TicketSpec = { exp: expires ?? defaultTicketExpiry(event) };
            if (holderName !== undefined) spec.holderName = holderName;
            if (ticketType !== undefined) spec.ticketType = ticketType;
            if (options.attention === true) spec.attention = true;
            if (note !== undefined) spec.note = note;
            if (dob !== undefined) spec.dob = dob;
            if (party !== undefined && party > 1) spec.party = party;
            if (handouts.length > 0) spec.handouts = handouts;
            return Array.from({ length: count }, () => spec);
          },
          nextId,
          output,
        );
        output.result(result, () => ticketLines(result));
      });
    }),
  );

  withCommonOptions(
    ticket
      .command('import')
      .description(
        'issue one ticket per CSV row: holder_name,ticket_type[,expires_at[,attention[,note[,dob[,party]]]]] (header row optional)',
      )
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--csv <file>', 'CSV file'),
  ).action(
    action<ImportOptions>((options, output) => {
      let text: string;
      try {
        text = fs.readFileSync(options.csv, 'utf8');
      } catch (error) {
        throw new AdminError(
          'INVALID_ARGUMENT',
          `cannot read --csv ${options.csv}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        );
      }
      return withIssuer(options.data, async (context) => {
        const result = await issueWithOutput(
          context,
          options.event,
          (event) => ticketSpecsFromCsv(text, defaultTicketExpiry(event), options.csv),
          nextId,
          output,
        );
        output.result(result, () => ticketLines(result));
      });
    }),
  );

  withCommonOptions(
    ticket
      .command('export')
      .description(
        "tickets to send: a PNG of each ticket's QR code (<tid>.png), a print-ready PDF, one ticket per page, and their list for a mail merge (tickets-<eid>.csv)",
      )
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--out <dir>', 'folder for the files (made if missing; files of the same names are replaced)')
      .option('--format <format>', `what to write: ${TICKET_EXPORT_FORMATS.join(', ')}`, 'both')
      .option('--page <size>', `PDF page size: ${PAGE_NAMES.join(', ')}`, 'a6')
      .option('--tz <zone>', "IANA time zone the event's date and time are printed in, e.g. Europe/Berlin", 'UTC')
      .option('--tid <tid...>', 'only these tickets of the event (default: every ticket that is not revoked)'),
  ).action(
    action<ExportOptions>((options, output) => {
      const format = parseTicketExportFormat(options.format);
      const page = parsePageSize(options.page);
      const timeZone = parseTimeZone(options.tz);
      return withIssuer(options.data, async (context) => {
        const result = await exportTickets(
          context,
          { eid: options.event, out: options.out, format, page, timeZone, ...(options.tid ? { tids: options.tid } : {}) },
          (total, label) => output.progress(total, label),
          (message) => output.log(message),
        );
        output.result(result, () => describeTicketExport(result));
      });
    }),
  );

  withCommonOptions(
    ticket
      .command('revoke')
      .description('revoke a ticket (takes effect on the next scan, also while serve runs)')
      .argument('<tid>', 'ticket ID')
      .option('--reason <reason>', 'why, for the audit trail'),
  ).action(
    action<RevokeOptions>((options, output, [tid]) =>
      withIssuer(options.data, async ({ database }) => {
        const reason = options.reason?.trim() || null;
        const result = await database.write((db) => revokeTicketById(db, tid!, reason, new Date()));
        output.result(result, () => `Revoked ticket ${tid}.`);
      }),
    ),
  );

  withCommonOptions(
    ticket
      .command('update')
      .description("change a ticket's attention flag, check-in note, date of birth or handout items (kiosks hear of it at their next sync)")
      .argument('<tid>', 'ticket ID')
      .option('--attention', 'set the attention flag')
      .option('--no-attention', 'clear the attention flag')
      .option('--note <text>', 'set the check-in note')
      .option('--no-note', 'remove the check-in note')
      .option('--dob <YYYY-MM-DD>', "set the holder's date of birth (stays on the issuer; kiosks get only the age band)")
      .option('--no-dob', 'remove the date of birth')
      .option('--party <n>', `how many people the ticket admits, 1 to ${MAX_PARTY} (never below those already admitted)`)
      .option('--handout <item>', 'set the ticket\'s own handout items, "2 drink voucher" (repeat for more; replaces them)', collect, [])
      .option('--no-handouts', "remove the ticket's own handout items (its type's stay)"),
  ).action(
    action<UpdateOptions>((options, output, [tid]) => {
      const party = options.party === undefined ? undefined : parsePartyOption(options.party);
      const handoutItems =
        options.handouts === false
          ? []
          : (options.handout ?? []).length > 0
            ? parseHandoutOptions(options.handout!, '--handout', 0)
            : undefined;
      if (options.handouts === false && (options.handout ?? []).length > 0)
        throw new AdminError('INVALID_ARGUMENT', '--handout and --no-handouts cannot go together');
      const dob = options.dob === undefined ? undefined : options.dob === false ? null : parseDobOption(options.dob, '--dob');
      const change: AttentionChange = {};
      if (options.attention !== undefined) change.attention = options.attention;
      if (options.note === false) change.note = null;
      else if (options.note !== undefined) change.note = parseNote(options.note, '--note');
      if (Object.keys(change).length === 0 && dob === undefined && party === undefined && handoutItems === undefined)
        throw new AdminError(
          'INVALID_ARGUMENT',
          'nothing to change: give --attention, --no-attention, --note, --no-note, --dob, --no-dob, --party, --handout or --no-handouts',
        );
      return withIssuer(options.data, async ({ database }) => {
        const partyResult = party === undefined ? undefined : await database.write(updateTicketPartyWrite({ tid: tid!, size: party }));
        if (dob !== undefined) await database.write(updateTicketDobWrite({ tid: tid!, dob }));
        const handouts =
          handoutItems === undefined ? undefined : await database.write(updateTicketHandoutsWrite({ tid: tid!, items: handoutItems }));
        const attention = await database.write(updateTicketAttentionWrite({ tid: tid!, change }));
        const result = {
          ...attention,
          ...(partyResult === undefined ? {} : { party: partyResult.party }),
          ...(handouts === undefined ? {} : { handouts }),
        };
        output.result(result, () =>
          [
            describeAttention(attention),
            ...(partyResult === undefined ? [] : [partyLine(partyResult.party)]),
            ...(handouts === undefined ? [] : describeHandouts(handouts)),
          ].join('\n'),
        );
      });
    }),
  );

  withCommonOptions(ticket.command('show').description("a ticket's status and its QR").argument('<tid>', 'ticket ID')).action(
    action<CommonOptions>((options, output, [tid]) =>
      withIssuer(options.data, async ({ database }) => {
        const row = await requireTicket(database.read, tid!);
        const attention = await attentionForTicket(database.read, row);
        const spec = ticketStatus(row, await findCheckin(database.read, row.tid), unixSeconds(new Date()), attention);
        // docs/protocol.md "ID checks (project extension)": what the door is asked, as the status answer says it (never the date).
        const idCheck = await idCheckForTicket(database.read, row);
        const party = await partyOfTicket(database.read, row.tid);
        // docs/protocol.md "Handouts (project extension)": the items with what was given, as the status answer says it.
        const handouts = await handoutsForTicket(database.read, row);
        const status = {
          ...spec,
          ...(idCheck === null ? {} : { id_check: idCheck }),
          ...(party === null ? {} : { party }),
          ...(handouts === null ? {} : { handouts }),
        };
        const result = ticketShowJson(row, status);
        const qr = output.json ? '' : await terminalQr(row.qr);
        output.result(result, () => [...describeStatus(status), '', qr, row.qr].join('\n'));
      }),
    ),
  );
}

function describeTicketExport(result: TicketExportResult): string {
  const c = result.counts;
  const lines = [`Exported ${c.tickets} ticket(s) of "${result.event}" (${result.eid}) to ${result.out}:`];
  if (result.pdf !== null)
    lines.push(`  ${result.pdf}: ${c.pdf_pages} page(s), ${result.page.toUpperCase()}, times in ${result.time_zone}`);
  if (c.png > 0) lines.push(`  ${c.png} PNG file(s), <tid>.png`);
  lines.push(`  ${result.manifest}: the list for a mail merge (tid, short id, holder, type, PNG, PDF page)`);
  lines.push(`${result.tickets_per_second} tickets/s; peak memory (RSS) ${result.peak_rss_mib} MiB.`);
  return lines.join('\n');
}

function describeAttention(result: TicketAttentionJson): string {
  return [
    `Ticket      ${result.tid}`,
    `Attention   ${result.attention ? 'yes' : 'no'}`,
    `Note        ${result.note ?? '-'}`,
    `At the door ${result.answer === null ? '-' : `${result.answer.required ? 'ATTENTION ' : ''}${result.answer.notes.join(' / ')}`}`,
  ].join('\n');
}

/** docs/protocol.md "Party tickets (project extension)": `3 of 5 in, 2 to come`, or one person. */
function partyLine(party: PartyState | null): string {
  if (party === null) return 'Party       1 person';
  return `Party       ${party.size} people: ${party.admitted_total} admitted, ${party.inside} inside, ${party.remaining} may still come in`;
}

/** Commander's collector for a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function describeHandouts(handouts: readonly Handout[]): string[] {
  if (handouts.length === 0) return ['Handouts    -'];
  return [
    `Handouts    ${formatHandouts(handouts)}`,
    ...handouts.flatMap((handout) =>
      handout.given.map(
        (given) => `  given     ${handout.item} at ${given.at} by ${given.scanner}${given.gate === null ? '' : ` (${given.gate})`}`,
      ),
    ),
    ...handouts.map((handout) => `  to give   ${handout.item}: ${remainingOf(handout)} of ${handout.count}`),
  ];
}

function describeStatus(
  status: TicketStatus & { attention?: Attention; id_check?: IdCheck; party?: PartyState; handouts?: Handout[] },
): string[] {
  return [
    `Ticket      ${status.tid}`,
    `Event       ${status.eid}`,
    `Status      ${status.status}`,
    `Holder      ${status.holder_name ?? '-'}`,
    `Type        ${status.ticket_type ?? '-'}`,
    `Issued at   ${status.issued_at}`,
    `Checked in  ${status.checked_in_at ?? '-'}`,
    ...(status.attention === undefined
      ? []
      : [
          `Attention   ${status.attention.required ? 'yes' : 'no'}${status.attention.notes.map((note) => `\n  note      ${note}`).join('')}`,
        ]),
    ...(status.id_check === undefined ? [] : [`ID check    ${idCheckLine(status.id_check)} (age band ${status.id_check.band})`]),
    ...(status.party === undefined ? [] : [partyLine(status.party)]),
    ...(status.handouts === undefined ? [] : describeHandouts(status.handouts)),
  ];
}

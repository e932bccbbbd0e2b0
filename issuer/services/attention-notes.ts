/**
 * Attention flags and check-in notes (docs/protocol.md "Attention notes (project extension)"): the changes the CLI
 * and the dashboard make, what a ticket's answers carry, and the synced list's pages. Storage: store/attention-notes.ts.
 */
import {
  attentionOf,
  NOTES_PAGE_DEFAULT,
  type Attention,
  type AttentionRule,
  type NotesPage,
  type TypeRule,
} from '../../protocol/attention.js';
import type { ScannerCredential } from '../auth.js';
import { AdminError } from '../error-catalogue.js';
import {
  notesAfter,
  noteSequence,
  setTicketAttention,
  setTypeRule,
  ticketAttentionRow,
  ticketRuleOf,
  typeRuleOf,
  typeRulesOf,
  type AttentionChange,
} from '../store/attention-notes.js';
import { findEvent } from '../store/events.js';
import { namedJob } from '../store/named-jobs.js';
import { bandsOf, typeIdChecksOf } from '../store/id-checks.js';
import { partiesOf } from '../store/party.js';
import { pageHandoutRows, typeHandoutListsOf } from '../store/handouts.js';
import type { TicketHandoutRow } from '../../protocol/handouts.js';
import type { Sql } from '../store/sql.js';
import type { TicketRow } from '../store/tickets.js';
import { listCursor, pageStart } from './list-cursor.js';

/** A ticket's flag and note as the CLI and the dashboard show them, with what its answers say. */
export interface TicketAttentionJson {
  tid: string;
  attention: boolean;
  note: string | null;
  /** What check-in and status answers carry now (type rule included); null: nothing. */
  answer: Attention | null;
}

/** What a ticket's check-in and status answers carry: its type's rule, then its own. */
export async function attentionForTicket(db: Sql, ticket: TicketRow): Promise<Attention | null> {
  const own = ticket.attention === undefined ? await ticketAttentionRow(db, ticket.tid) : ticket;
  return attentionOf(await typeRuleOf(db, ticket.eid, ticket.ticket_type), own ? ticketRuleOf(own) : null);
}

/** `ticket update` and the dashboard's form: changes a ticket's flag and/or note. */
export async function updateTicketAttention(db: Sql, tid: string, change: AttentionChange): Promise<TicketAttentionJson> {
  if (!(await setTicketAttention(db, tid, change))) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  const ticket = (await db.get<TicketRow & { attention: number; note: string | null }>(
    'SELECT tid, eid, ticket_type, attention, note FROM tickets WHERE tid = ?',
    [tid],
  ))!;
  return {
    tid,
    attention: Number(ticket.attention) === 1,
    note: ticket.note,
    answer: await attentionForTicket(db, ticket),
  };
}

export const updateTicketAttentionWrite = namedJob('update-ticket-attention', (db, args: { tid: string; change: AttentionChange }) =>
  updateTicketAttention(db, args.tid, args.change),
);

/**
 * `event ticket-type set`: changes a type's rule (a field left out keeps its value); returns the event's rules.
 * The type's rule travels whole on every page of the synced list, so no sequence number is needed.
 */
export async function setTicketTypeAttention(
  db: Sql,
  eid: string,
  ticketType: string,
  change: AttentionChange,
  now: string,
): Promise<TypeRule[]> {
  if (!(await findEvent(db, eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer`);
  const current: AttentionRule = (await typeRuleOf(db, eid, ticketType)) ?? { attention: false, note: null };
  await setTypeRule(
    db,
    eid,
    ticketType,
    { attention: change.attention ?? current.attention, note: change.note === undefined ? current.note : change.note },
    now,
  );
  return typeRulesOf(db, eid);
}

export const setTicketTypeAttentionWrite = namedJob(
  'set-ticket-type-attention',
  (db, args: { eid: string; ticketType: string; change: AttentionChange; now: string }) =>
    setTicketTypeAttention(db, args.eid, args.ticketType, args.change, args.now),
);

/** [tid, own items, given] for each listed ticket with either. */
async function handoutRows(db: Sql, eid: string, tids: readonly string[], after: number, lastSeq: number): Promise<TicketHandoutRow[]> {
  const { lists, given } = await pageHandoutRows(db, eid, after, lastSeq);
  return tids
    .filter((tid) => lists.has(tid) || given.has(tid))
    .map((tid): TicketHandoutRow => [tid, lists.get(tid) ?? [], given.get(tid) ?? []]);
}

/**
 * GET /api/v1/scanners/notes: the scanner's event's ticket changes after its cursor, a page at a time, and every
 * type rule. As the revocation list (services/revocations.ts): the sequence is read first, so every number up to
 * it was committed and the rows read next hold all of them; a cursor of another copy, or ahead, starts again.
 */
export async function notesPage(
  db: Sql,
  credential: Pick<ScannerCredential, 'eid'>,
  query: { since?: string; limit?: number },
  now: Date,
): Promise<NotesPage> {
  const limit = query.limit ?? NOTES_PAGE_DEFAULT;
  const sequence = await noteSequence(db);
  const { after, reset } = pageStart(query.since, sequence);
  const { rows, lastSeq } = await notesAfter(db, credential.eid, after, sequence.last_seq, limit);
  const complete = rows.length < limit;
  const tids = rows.map((row) => row[0]);
  return {
    eid: credential.eid,
    tickets: rows,
    types: await typeRulesOf(db, credential.eid),
    // docs/protocol.md "ID checks (project extension)": every type's check, whole, and the listed tickets' age bands.
    id_checks: await typeIdChecksOf(db, credential.eid),
    id_bands: await bandsOf(db, credential.eid, tids),
    // docs/protocol.md "Party tickets (project extension)": the listed tickets' party sizes (a listed ticket without a row: one).
    parties: await partiesOf(db, credential.eid, tids),
    // docs/protocol.md "Handouts (project extension)": every type's items, whole, and the listed tickets' own and given.
    handout_types: await typeHandoutListsOf(db, credential.eid),
    handouts: lastSeq === null ? [] : await handoutRows(db, credential.eid, tids, after, lastSeq),
    next: listCursor(sequence.copy_id, complete ? sequence.last_seq : lastSeq!),
    complete,
    reset,
    server_time: now.toISOString(),
  };
}

/**
 * Handouts (docs/protocol.md "Handouts (project extension)"): the CLI's and the dashboard's changes (a type's items,
 * a ticket's own), what a ticket's answers carry, and the scanner's record of one handout (POST
 * /api/v1/tickets/handouts): one write job that locks the ticket, reads what was given, decides by the one rule
 * (protocol/handouts.ts decideHandout) and stores the handout under the kiosk's id, given or refused, so the same
 * id sent again gets the same answer. Storage: store/handouts.ts.
 */
import {
  decideHandout,
  handoutListProblem,
  handoutsOf,
  mergeHandouts,
  type Handout,
  type HandoutAnswer,
  type HandoutItem,
  type HandoutRequest,
} from '../../protocol/handouts.js';
import type { ScannerCredential } from '../auth.js';
import { AdminError, errors, type ApiError } from '../error-catalogue.js';
import { findEvent } from '../store/events.js';
import {
  findHandout,
  givenOf,
  insertHandout,
  setTicketHandouts,
  setTypeHandouts,
  ticketHandoutsOf,
  typeHandoutListsOf,
  typeHandoutsOf,
  type HandoutRow,
  type TypeHandouts,
} from '../store/handouts.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import type { TicketRow } from '../store/tickets.js';
import { announce } from './webhooks.js';

/** What a ticket's check-in and status answers carry: its type's items merged with its own, with what was given. Null: no items. */
export async function handoutsForTicket(db: Sql, ticket: Pick<TicketRow, 'tid' | 'eid' | 'ticket_type'>): Promise<Handout[] | null> {
  const items = mergeHandouts(await typeHandoutsOf(db, ticket.eid, ticket.ticket_type), await ticketHandoutsOf(db, ticket.tid));
  if (items.length === 0) return null;
  return handoutsOf(items, await givenOf(db, ticket.tid));
}

function checkedList(items: readonly HandoutItem[]): void {
  const problem = handoutListProblem(items);
  if (problem !== null) throw new AdminError('INVALID_ARGUMENT', `the handout list ${problem}`);
}

/** `event ticket-type set --handout`: sets a type's items (empty: none); returns the event's lists. */
export async function setTicketTypeHandouts(
  db: Sql,
  eid: string,
  ticketType: string,
  items: readonly HandoutItem[],
  now: string,
): Promise<TypeHandouts[]> {
  checkedList(items);
  if (items.some((entry) => entry.count === 0)) throw new AdminError('INVALID_ARGUMENT', "a ticket type's item needs a count of 1 or more");
  if (!(await findEvent(db, eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer`);
  await setTypeHandouts(db, eid, ticketType, items, now);
  return typeHandoutListsOf(db, eid);
}

export const setTicketTypeHandoutsWrite = namedJob(
  'set-ticket-type-handouts',
  (db, args: { eid: string; ticketType: string; items: HandoutItem[]; now: string }) =>
    setTicketTypeHandouts(db, args.eid, args.ticketType, args.items, args.now),
);

/** `ticket issue|update --handout`: sets a ticket's own items (count 0 takes a type's item away); returns what its answers carry. */
export async function updateTicketHandouts(db: Sql, tid: string, items: readonly HandoutItem[]): Promise<Handout[]> {
  checkedList(items);
  if (!(await setTicketHandouts(db, tid, items))) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  const ticket = (await db.get<Pick<TicketRow, 'tid' | 'eid' | 'ticket_type'>>('SELECT tid, eid, ticket_type FROM tickets WHERE tid = ?', [
    tid,
  ]))!;
  return (await handoutsForTicket(db, ticket)) ?? [];
}

export const updateTicketHandoutsWrite = namedJob('update-ticket-handouts', (db, args: { tid: string; items: HandoutItem[] }) =>
  updateTicketHandouts(db, args.tid, args.items),
);

export type HandoutResult = { ok: true; answer: HandoutAnswer } | { ok: false; error: ApiError };

/** POST /api/v1/tickets/handouts: one write job (docs/protocol.md "Handouts (project extension)"). */
export function recordHandout(database: SqlDatabase, credential: ScannerCredential, body: HandoutRequest): Promise<HandoutResult> {
  return database.write(recordHandoutWrite({ credential, body, now: new Date().toISOString() }));
}

export const recordHandoutWrite = namedJob(
  'record-handout',
  (db, args: { credential: ScannerCredential; body: HandoutRequest; now: string }) =>
    recordHandoutJob(db, args.credential, args.body, args.now),
);

/** The answer a stored handout gives, sent again: the same status and reason, the ticket's items now. */
function answerOf(row: HandoutRow, handouts: Handout[], given?: Handout['given']): HandoutAnswer {
  return {
    handout_id: row.hid,
    tid: row.tid,
    item: row.item,
    status: row.status,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(given === undefined ? {} : { given }),
    handouts,
  };
}

async function recordHandoutJob(db: Sql, credential: ScannerCredential, body: HandoutRequest, now: string): Promise<HandoutResult> {
  if (body.eid !== credential.eid) return { ok: false, error: errors.forbiddenEvent() };
  // The ticket's row is locked first (PostgreSQL): two kiosks giving the same item at once are judged one after the
  // other, so the count is never exceeded (SQLite's write lock serialises every writer already).
  const ticket = await db.get<Pick<TicketRow, 'tid' | 'eid' | 'ticket_type'>>(
    `SELECT tid, eid, ticket_type FROM tickets WHERE tid = ?${db.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
    [body.tid],
  );
  if (!ticket) return { ok: false, error: errors.ticketNotFound() };
  if (ticket.eid !== credential.eid) return { ok: false, error: errors.forbiddenEvent() };
  const stored = await findHandout(db, body.handout_id);
  if (stored !== undefined) {
    // The same id with another ticket or item is another request: the spec's reused-key conflict.
    if (stored.tid !== body.tid || stored.item !== body.item) return { ok: false, error: errors.idempotencyConflict() };
    const handouts = (await handoutsForTicket(db, ticket)) ?? [];
    const decision = decideHandout(handouts, stored.item);
    return {
      ok: true,
      answer: answerOf(
        stored,
        handouts,
        stored.reason === 'already_given' && !decision.ok && decision.reason === 'already_given' ? decision.given : undefined,
      ),
    };
  }
  const before = (await handoutsForTicket(db, ticket)) ?? [];
  const decision = decideHandout(before, body.item, body.handout_id);
  const scanner = await db.get<{ scanner_name: string | null }>('SELECT scanner_name FROM api_keys WHERE api_key_id = ?', [
    credential.apiKeyId,
  ]);
  const row: HandoutRow = {
    hid: body.handout_id,
    eid: ticket.eid,
    tid: ticket.tid,
    item: body.item,
    status: decision.ok ? 'given' : 'refused',
    reason: decision.ok ? null : decision.reason,
    given_at: body.given_at,
    received_at: now,
    scanner_id: credential.scannerId,
    scanner_name: scanner?.scanner_name ?? credential.scannerId,
    gate_id: body.gate_id ?? credential.gateId,
    api_key_id: credential.apiKeyId,
    staff_id: body.staff_id ?? null,
  };
  await insertHandout(db, row);
  if (decision.ok) {
    // docs/issuer.md "Webhooks": each handout given, in its transaction.
    await announce(
      db,
      'handout.given',
      ticket.eid,
      {
        eid: ticket.eid,
        tid: ticket.tid,
        handout_id: row.hid,
        item: row.item,
        given_at: row.given_at,
        scanner_id: row.scanner_id,
        gate_id: row.gate_id,
      },
      now,
    );
  }
  const handouts = decision.ok ? ((await handoutsForTicket(db, ticket)) ?? []) : before;
  return { ok: true, answer: answerOf(row, handouts, !decision.ok && decision.reason === 'already_given' ? decision.given : undefined) };
}

/** The event's type lists, by type (the dashboard's panel and `event ticket-type list`). */
export function ticketTypeHandouts(db: Sql, eid: string): Promise<TypeHandouts[]> {
  return typeHandoutListsOf(db, eid);
}

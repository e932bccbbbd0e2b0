/**
 * ID and age checks (docs/protocol.md "ID checks (project extension)"): the CLI's changes (a type's check, a
 * ticket's date of birth) and what a ticket's answers carry. Storage: store/id-checks.ts.
 */
import { idCheckOf, type IdCheck, type IdCheckRule } from '../../protocol/id-check.js';
import { AdminError } from '../error-catalogue.js';
import { findEvent } from '../store/events.js';
import { setTicketDob, setTypeIdCheck, typeIdCheckOf, typeIdChecksOf, type TypeIdCheck } from '../store/id-checks.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql } from '../store/sql.js';
import type { TicketRow } from '../store/tickets.js';

/** What a ticket's check-in and status answers carry: its type's check with the holder's short name and band. */
export async function idCheckForTicket(
  db: Sql,
  ticket: Pick<TicketRow, 'tid' | 'eid' | 'ticket_type' | 'holder_name'>,
): Promise<IdCheck | null> {
  const rule = await typeIdCheckOf(db, ticket.eid, ticket.ticket_type);
  if (rule === null) return null;
  const row = await db.get<{ dob: string | null; date: string }>(
    'SELECT t.dob, e.date FROM tickets t JOIN events e ON e.eid = t.eid WHERE t.tid = ?',
    [ticket.tid],
  );
  return idCheckOf(rule, { holder_name: ticket.holder_name, dob: row?.dob ?? null }, row?.date ?? '');
}

/** `event ticket-type set --id-check`: sets a type's check; returns the event's checks. */
export async function setTicketTypeIdCheck(
  db: Sql,
  eid: string,
  ticketType: string,
  rule: IdCheckRule,
  now: string,
): Promise<TypeIdCheck[]> {
  if (!(await findEvent(db, eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer`);
  await setTypeIdCheck(db, eid, ticketType, rule, now);
  return typeIdChecksOf(db, eid);
}

export const setTicketTypeIdCheckWrite = namedJob(
  'set-ticket-type-id-check',
  (db, args: { eid: string; ticketType: string; rule: IdCheckRule; now: string }) =>
    setTicketTypeIdCheck(db, args.eid, args.ticketType, args.rule, args.now),
);

/** `ticket update --dob` / `--no-dob`. */
export async function updateTicketDob(db: Sql, tid: string, dob: string | null): Promise<void> {
  if (!(await setTicketDob(db, tid, dob))) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
}

export const updateTicketDobWrite = namedJob('update-ticket-dob', (db, args: { tid: string; dob: string | null }) =>
  updateTicketDob(db, args.tid, args.dob),
);

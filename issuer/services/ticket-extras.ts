/**
 * What a list of tickets carries beside its status, as the status answer says it for one (docs/protocol.md
 * "Handouts (project extension)", "Party tickets (project extension)"): each ticket's handout items with what was
 * given, when and where, and a party ticket's size and counts. Read for the whole list in a few statements (the
 * event's type items and entry policy, the handouts given to the listed tickets), never a few per ticket: the ticket
 * search's page of results (docs/protocol.md "Ticket search") and the dashboard's lookup use it.
 */
import type { EntryPolicy } from '../../protocol/door.js';
import { handoutsOf, mergeHandouts, type Handout, type HandoutItem } from '../../protocol/handouts.js';
import { countsOf, partySizeOf, partyState, type PartyState } from '../../protocol/party.js';
import type { AdmissionState } from '../store/checkins.js';
import { findEvent } from '../store/events.js';
import { givenOfTickets, parseItems, typeHandoutListsOf } from '../store/handouts.js';
import type { Sql } from '../store/sql.js';

/** The columns a listed ticket needs: its own items (JSON) and size, and its check-in's state and people's counts. */
export interface ExtrasRow {
  tid: string;
  eid: string;
  ticket_type: string | null;
  handouts?: string | null | undefined;
  party?: number | null | undefined;
  state: AdmissionState | null;
  party_inside?: number | null | undefined;
  party_admitted?: number | null | undefined;
}

/** Absent members: no items, one person. */
export interface TicketExtras {
  handouts?: Handout[];
  party?: PartyState;
}

export async function ticketExtras(db: Sql, rows: readonly ExtrasRow[]): Promise<Map<string, TicketExtras>> {
  const extras = new Map<string, TicketExtras>();
  if (rows.length === 0) return extras;
  const events = new Map<string, { typeItems: Map<string, HandoutItem[]>; policy: EntryPolicy }>();
  for (const eid of new Set(rows.map((row) => row.eid)))
    events.set(eid, {
      typeItems: new Map((await typeHandoutListsOf(db, eid)).map((list) => [list.ticket_type, list.items])),
      policy: (await findEvent(db, eid))?.entry_policy ?? 'single',
    });
  const given = await givenOfTickets(
    db,
    rows.map((row) => row.tid),
  );
  for (const row of rows) {
    const event = events.get(row.eid)!;
    const found: TicketExtras = {};
    // services/handouts.ts handoutsForTicket's rule: the type's items merged with the ticket's own.
    const items = mergeHandouts(row.ticket_type === null ? null : event.typeItems.get(row.ticket_type), parseItems(row.handouts));
    if (items.length > 0) found.handouts = handoutsOf(items, given.get(row.tid) ?? []);
    // store/party.ts partyOfTicket's rule: a ticket of one person has none.
    const size = partySizeOf(row.party);
    if (size > 1) {
      const counts =
        row.state === null ? undefined : { state: row.state, party_inside: row.party_inside, party_admitted: row.party_admitted };
      found.party = partyState(size, countsOf(counts), event.policy);
    }
    extras.set(row.tid, found);
  }
  return extras;
}

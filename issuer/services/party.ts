/**
 * Party tickets (docs/protocol.md "Party tickets (project extension)"): `ticket update --party` and what a ticket's
 * status answers and `ticket show` carry. Storage: store/party.ts; the check-in's rules: protocol/party.ts.
 */
import { MAX_PARTY, type PartyState } from '../../protocol/party.js';
import { AdminError } from '../error-catalogue.js';
import { namedJob } from '../store/named-jobs.js';
import { partyOfTicket, setTicketParty } from '../store/party.js';
import type { Sql } from '../store/sql.js';

export { partyOfTicket };

/** `ticket update --party N`: the ticket's new size, never below the people already admitted. */
export async function updateTicketParty(db: Sql, tid: string, size: number): Promise<{ tid: string; party: PartyState | null }> {
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_PARTY)
    throw new AdminError('INVALID_ARGUMENT', `--party must be a whole number 1 to ${MAX_PARTY}`);
  const set = await setTicketParty(db, tid, size);
  if (set === undefined) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  if (set.refusedBelow !== null)
    throw new AdminError(
      'INVALID_ARGUMENT',
      `--party ${size} is below the ${set.refusedBelow} people of this ticket already admitted; nothing was changed`,
    );
  return { tid, party: await partyOfTicket(db, tid) };
}

export const updateTicketPartyWrite = namedJob('update-ticket-party', (db, args: { tid: string; size: number }) =>
  updateTicketParty(db, args.tid, args.size),
);

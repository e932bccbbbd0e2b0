/**
 * Party tickets (docs/protocol.md "Party tickets (project extension)"): a ticket's size in tickets.party and its
 * people's counts in its checkins row (written by the check-in, services/check-in.ts). A change of size takes a
 * number of the note sequence (store/attention-notes.ts), so the synced list's cursor brings it to the kiosks.
 */
import type { EntryPolicy } from '../../protocol/door.js';
import { countsOf, partySizeOf, partyState, type PartyState } from '../../protocol/party.js';
import { takeNoteNumbers } from './attention-notes.js';
import type { AdmissionState } from './checkins.js';
import type { Sql } from './sql.js';

interface PartyRow {
  party: number | null;
  entry_policy: EntryPolicy;
  state: AdmissionState | null;
  party_inside: number | null;
  party_admitted: number | null;
}

const PARTY_ROW = `SELECT t.party AS party, e.entry_policy AS entry_policy, c.state AS state, c.party_inside AS party_inside,
         c.party_admitted AS party_admitted
  FROM tickets t JOIN events e ON e.eid = t.eid LEFT JOIN checkins c ON c.tid = t.tid WHERE t.tid = ?`;

/** The ticket's size and counts as answers carry them; null for a ticket of one person (or none such). */
export async function partyOfTicket(db: Sql, tid: string): Promise<PartyState | null> {
  const row = await db.get<PartyRow>(PARTY_ROW, [tid]);
  if (row === undefined || partySizeOf(row.party) === 1) return null;
  return partyState(partySizeOf(row.party), countsOf(rowCounts(row)), row.entry_policy);
}

const rowCounts = (row: PartyRow) =>
  row.state === null
    ? undefined
    : {
        state: row.state,
        party_inside: row.party_inside === null ? null : Number(row.party_inside),
        party_admitted: row.party_admitted === null ? null : Number(row.party_admitted),
      };

/**
 * Sets a ticket's size (1: one person). Refused below the people already admitted (or inside): `undefined` when
 * there is no such ticket, else the admitted count that refused it (null: set).
 */
export async function setTicketParty(tx: Sql, tid: string, size: number): Promise<{ refusedBelow: number | null } | undefined> {
  const row = await tx.get<PartyRow>(PARTY_ROW, [tid]);
  if (row === undefined) return undefined;
  const counts = countsOf(rowCounts(row));
  const floor = Math.max(counts.admitted, counts.inside);
  if (size < floor) return { refusedBelow: floor };
  if (partySizeOf(row.party) === size) return { refusedBelow: null };
  const seq = await takeNoteNumbers(tx, 1);
  await tx.run('UPDATE tickets SET party = ?, note_seq = ? WHERE tid = ?', [size === 1 ? null : size, seq, tid]);
  // A row of one person gets its counts written out, so that the party rules read them as they are.
  if (row.state !== null && row.party_inside === null)
    await tx.run('UPDATE checkins SET party_inside = ?, party_admitted = ? WHERE tid = ?', [counts.inside, counts.admitted, tid]);
  return { refusedBelow: null };
}

/** The sizes of the listed tickets that admit more than one person: [tid, size] (the synced notes list's `parties`). */
export async function partiesOf(db: Sql, eid: string, tids: readonly string[]): Promise<Array<[string, number]>> {
  const parties: Array<[string, number]> = [];
  for (let start = 0; start < tids.length; start += 500) {
    const chunk = tids.slice(start, start + 500);
    // By the primary key alone, the event checked here: with `eid = ?` in the statement SQLite walked the event's
    // index for every chunk (all of an event's tickets, 20 times a page of 10,000), not the 500 tids asked for.
    const rows = await db.all<{ tid: string; eid: string; party: number }>(
      `SELECT tid, eid, party FROM tickets WHERE party > 1 AND tid IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
    for (const row of rows) if (row.eid === eid) parties.push([row.tid, Number(row.party)]);
  }
  return parties;
}

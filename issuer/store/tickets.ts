import { searchName } from '../../protocol/search-name.js';
import { takeNoteNumbers } from './attention-notes.js';
import type { HandoutItem } from '../../protocol/handouts.js';
import { numberRevocation } from './revocations.js';
import type { Sql } from './sql.js';

export interface TicketRow {
  tid: string;
  eid: string;
  kid: string;
  holder_name: string | null;
  ticket_type: string | null;
  issued_at: string;
  exp: number;
  qr: string;
  revoked_at: string | null;
  revoke_reason: string | null;
  /** The ticket's own attention flag (0 or 1) and note (docs/protocol.md "Attention notes (project extension)"). */
  attention?: number;
  note?: string | null;
  /** How many people the ticket admits (docs/protocol.md "Party tickets (project extension)"); null or absent: one. */
  party?: number | null;
}

/** A ticket to store; `attention` and `note` only when issued with them. */
export type NewTicket = Omit<TicketRow, 'revoked_at' | 'revoke_reason' | 'attention' | 'note'> & {
  attention?: boolean;
  note?: string | null;
  /** Date of birth, YYYY-MM-DD (docs/protocol.md "ID checks (project extension)"): stored here, not in TICKET_COLUMNS. */
  dob?: string | null;
  /** Its own items (docs/protocol.md "Handouts (project extension)"): stored here, not in TICKET_COLUMNS. */
  handouts?: HandoutItem[];
};

/** The ticket columns, spelled once: `SELECT *` would also bring PostgreSQL's own sequence column. */
export const TICKET_COLUMNS = 'tid, eid, kid, holder_name, ticket_type, issued_at, exp, qr, revoked_at, revoke_reason, attention, note';

/**
 * Rows per INSERT statement: one statement and, on PostgreSQL, one round trip for many tickets, which is what
 * keeps bulk issuance fast there (14 values a row, far below either database's limit on parameters).
 */
const TICKETS_PER_INSERT = 500;

/** Stores tickets; call inside a write job (one transaction per batch: callers batch bulk issuance). */
export async function insertTickets(db: Sql, tickets: readonly NewTicket[]): Promise<void> {
  for (let start = 0; start < tickets.length; start += TICKETS_PER_INSERT) {
    const chunk = tickets.slice(start, start + TICKETS_PER_INSERT);
    // A ticket issued with a flag or a note is a change kiosks sync: it gets its number in the note sequence in
    // this transaction (docs/protocol.md "Attention notes (project extension)").
    // A date of birth too: the synced list carries its age band (docs/protocol.md "ID checks (project extension)").
    // A party of more than one: the synced list carries its size (docs/protocol.md "Party tickets (project extension)").
    // Its own handout items too (docs/protocol.md "Handouts (project extension)").
    const isNoted = (ticket: NewTicket) =>
      ticket.attention === true ||
      (ticket.note ?? null) !== null ||
      (ticket.dob ?? null) !== null ||
      (ticket.party ?? 1) > 1 ||
      (ticket.handouts?.length ?? 0) > 0;
    const noted = chunk.filter(isNoted).length;
    let seq = noted === 0 ? 0 : await takeNoteNumbers(db, noted);
    await db.run(
      `INSERT INTO tickets (tid, eid, kid, holder_name, ticket_type, issued_at, exp, qr, search_name, attention, note, note_seq, dob, party) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      chunk.flatMap((ticket) => {
        return [
          ticket.tid,
          ticket.eid,
          ticket.kid,
          ticket.holder_name,
          ticket.ticket_type,
          ticket.issued_at,
          ticket.exp,
          ticket.qr,
          ticket.holder_name === null ? null : searchName(ticket.holder_name),
          ticket.attention === true ? 1 : 0,
          ticket.note ?? null,
          isNoted(ticket) ? seq++ : null,
          ticket.dob ?? null,
          (ticket.party ?? 1) > 1 ? ticket.party! : null,
        ];
      }),
    );
    for (const ticket of chunk)
      if ((ticket.handouts?.length ?? 0) > 0)
        await db.run('UPDATE tickets SET handouts = ? WHERE tid = ?', [JSON.stringify(ticket.handouts), ticket.tid]);
  }
}

export function findTicket(db: Sql, tid: string): Promise<TicketRow | undefined> {
  return db.get<TicketRow>(`SELECT ${TICKET_COLUMNS} FROM tickets WHERE tid = ?`, [tid]);
}

/**
 * Returns false when the ticket does not exist. Revoking twice keeps the first time and reason. Revocations are
 * final (nothing un-revokes a ticket); a new one gets its number in the revocation sequence in the same
 * transaction (store/revocations.ts), which is how kiosks hear of it (docs/protocol.md "Revocation list").
 */
export async function revokeTicket(db: Sql, tid: string, reason: string | null, now: string): Promise<boolean> {
  const result = await db.run(
    'UPDATE tickets SET revoked_at = COALESCE(revoked_at, ?), revoke_reason = COALESCE(revoke_reason, ?) WHERE tid = ?',
    [now, reason, tid],
  );
  if (result.changes !== 1) return false;
  await numberRevocation(db, tid);
  return true;
}

/** Rows per batch when searchable names are made for tickets that have none (after migration 10, after an import). */
const FILL_BATCH = 1000;

/**
 * Gives every named ticket without a searchable name its name in the searchable form (protocol/search-name.ts);
 * call inside a write job. Tickets issued by this program get theirs when inserted; this fills the others.
 */
export async function fillSearchNames(db: Sql): Promise<number> {
  let filled = 0;
  for (;;) {
    const rows = await db.all<{ tid: string; holder_name: string }>(
      `SELECT tid, holder_name FROM tickets WHERE search_name IS NULL AND holder_name IS NOT NULL LIMIT ${FILL_BATCH}`,
    );
    for (const row of rows) await db.run('UPDATE tickets SET search_name = ? WHERE tid = ?', [searchName(row.holder_name), row.tid]);
    filled += rows.length;
    if (rows.length < FILL_BATCH) return filled;
  }
}

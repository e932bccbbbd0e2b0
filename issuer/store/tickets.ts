import { prepareCached, type Db } from './database.js';

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
}

export type NewTicket = Omit<TicketRow, 'revoked_at' | 'revoke_reason'>;

/** Stores tickets in one transaction per call: callers batch bulk issuance. */
export function insertTickets(db: Db, tickets: readonly NewTicket[]): void {
  const insert = prepareCached(
    db,
    'INSERT INTO tickets (tid, eid, kid, holder_name, ticket_type, issued_at, exp, qr) VALUES (@tid, @eid, @kid, @holder_name, @ticket_type, @issued_at, @exp, @qr)',
  );
  db.transaction(() => {
    for (const ticket of tickets) insert.run(ticket);
  }).immediate();
}

export function findTicket(db: Db, tid: string): TicketRow | undefined {
  return prepareCached(db, 'SELECT * FROM tickets WHERE tid = ?').get(tid) as TicketRow | undefined;
}

/** Returns false when the ticket does not exist. Revoking twice keeps the first time and reason. */
export function revokeTicket(db: Db, tid: string, reason: string | null, now: string): boolean {
  const result = prepareCached(
    db,
    'UPDATE tickets SET revoked_at = COALESCE(revoked_at, ?), revoke_reason = COALESCE(revoke_reason, ?) WHERE tid = ?',
  ).run(now, reason, tid);
  return result.changes === 1;
}

/**
 * The revocation sequence (docs/protocol.md "Revocation list"): every ticket that becomes revoked gets the next
 * number of one issuer-wide sequence, in the transaction that revokes it, so a scanner that holds a cursor
 * (this copy's id and the last number it saw) is sent exactly the revocations after it.
 *
 * Exact under concurrency on both stores: the number is taken by moving the one row of `revocation_sequence`.
 * On SQLite the write lock serialises writers; on PostgreSQL the row's lock makes a second revoking transaction
 * wait until the first has committed, so numbers become visible in order: whoever sees number N committed also
 * sees every number below it. (A PostgreSQL SEQUENCE would not do: its numbers are handed out before commit and
 * can become visible out of order, and a reader that saw 7 would never be sent the 6 committed after it.)
 */
import type { Sql } from './sql.js';

export interface RevocationSequence {
  last_seq: number;
  copy_id: string;
}

/** Numbers the ticket's revocation unless it has one already; call in the revoking write job. Returns its number. */
export async function numberRevocation(tx: Sql, tid: string): Promise<number | null> {
  const ticket = await tx.get<{ revoked_at: string | null; revocation_seq: number | null }>(
    'SELECT revoked_at, revocation_seq FROM tickets WHERE tid = ?',
    [tid],
  );
  if (!ticket || ticket.revoked_at === null) return null;
  if (ticket.revocation_seq !== null) return Number(ticket.revocation_seq);
  await tx.run('UPDATE revocation_sequence SET last_seq = last_seq + 1 WHERE singleton = 1');
  const seq = Number((await tx.get<{ last_seq: number }>('SELECT last_seq FROM revocation_sequence WHERE singleton = 1'))!.last_seq);
  await tx.run('UPDATE tickets SET revocation_seq = ? WHERE tid = ?', [seq, tid]);
  return seq;
}

export async function revocationSequence(db: Sql): Promise<RevocationSequence> {
  const row = await db.get<RevocationSequence>('SELECT last_seq, copy_id FROM revocation_sequence WHERE singleton = 1');
  if (!row) throw new Error('the revocation sequence is missing (run ticket-issuer migrate)');
  return { last_seq: Number(row.last_seq), copy_id: row.copy_id };
}

/** The event's revocations numbered after `after` and at most `upTo`, in order, at most `limit`. */
export async function revocationsAfter(
  db: Sql,
  eid: string,
  after: number,
  upTo: number,
  limit: number,
): Promise<Array<{ tid: string; seq: number }>> {
  const rows = await db.all<{ tid: string; seq: number }>(
    `SELECT tid, revocation_seq AS seq FROM tickets
     WHERE eid = ? AND revocation_seq IS NOT NULL AND revocation_seq > ? AND revocation_seq <= ?
     ORDER BY revocation_seq LIMIT ?`,
    [eid, after, upTo, limit],
  );
  return rows.map((row) => ({ tid: row.tid, seq: Number(row.seq) }));
}

/**
 * The event's revoked scanners (docs/protocol.md "Revocation list"): a scanner id whose every key is revoked, with
 * its last revocation. A kiosk enrolled again under the same id with a live key is not listed, so its new
 * certificate keeps working with its peers.
 */
export async function revokedScannersOf(db: Sql, eid: string): Promise<{ scanner_id: string; revoked_at: string }[]> {
  return db.all(
    `SELECT scanner_id, MAX(revoked_at) AS revoked_at FROM api_keys WHERE eid = ?
     GROUP BY scanner_id HAVING COUNT(*) = COUNT(revoked_at) ORDER BY revoked_at, scanner_id`,
    [eid],
  );
}

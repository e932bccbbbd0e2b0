/**
 * The ticket search's read (docs/protocol.md "Ticket search"): the event's tickets whose searchable name holds
 * every query word, or whose id the query names. One statement on both databases: the words are matched with
 * LIKE against tickets.search_name, already lower-case letters, digits and spaces (no LIKE wildcard in them).
 * Each row carries the ticket's own attention flag and note (docs/protocol.md "Attention notes (project
 * extension)"), its own handout items, its party size and its people's counts (docs/protocol.md "Handouts
 * (project extension)", "Party tickets (project extension)"); its type's rule and items, the event's entry policy
 * and the handouts given are read apart, once for the page of results (services/ticket-search.ts), since a join
 * here would be made for every match before PostgreSQL sorts them.
 */
import type { AdmissionState } from './checkins.js';
import type { Sql } from './sql.js';

export interface TicketSearchRow {
  tid: string;
  holder_name: string | null;
  ticket_type: string | null;
  exp: number;
  revoked_at: string | null;
  state: AdmissionState | null;
  checked_in_at: string | null;
  /** The ticket's own flag (0 or 1) and note. */
  attention: number | null;
  note: string | null;
  /** The ticket's own handout items (JSON, store/handouts.ts) and its party size (NULL: one person). */
  handouts: string | null;
  party: number | null;
  party_inside: number | null;
  party_admitted: number | null;
}

export interface TicketSearchQuery {
  eid: string;
  /** Words in the searchable form (protocol/search-name.ts searchTokens). */
  tokens: readonly string[];
  /** A whole tid, or the 8 characters of a short id (upper-case), that the query may be. */
  tid?: string | undefined;
  shortId?: string | undefined;
  limit: number;
}

export function searchTickets(db: Sql, query: TicketSearchQuery): Promise<TicketSearchRow[]> {
  const matches: string[] = [];
  const params: (string | number)[] = [query.eid];
  if (query.tokens.length > 0) {
    matches.push(`(${query.tokens.map(() => 't.search_name LIKE ?').join(' AND ')})`);
    params.push(...query.tokens.map((token) => `%${token}%`));
  }
  if (query.tid !== undefined) {
    // Ticket ids are ULIDs (upper case); a person may type them in lower case.
    matches.push('t.tid IN (?, ?)');
    params.push(query.tid, query.tid.toUpperCase());
  }
  if (query.shortId !== undefined) {
    matches.push('t.tid LIKE ?');
    params.push(`%${query.shortId}`);
  }
  if (matches.length === 0) return Promise.resolve([]);
  params.push(query.limit);
  const columns = `t.tid, t.holder_name, t.ticket_type, t.exp, t.revoked_at, c.state, c.checked_in_at,
            t.attention, t.note, t.handouts, t.party, c.party_inside, c.party_admitted`;
  const where = `t.eid = ? AND (${matches.join(' OR ')})`;
  // The same order on both (no name first: SQLite sorts NULL first), each the fastest way its planner has
  // (npm run bench:search, docs/protocol.md "Ticket search"). SQLite walks tickets_by_search_name in order and
  // stops at the limit. PostgreSQL finds the page's tids first, in its tickets_by_search_name (eid, search_name
  // NULLS FIRST, tid: migration 19) alone, walked in order for a common word, every name read for a rare one; only
  // then does it read those rows. Reading the event's rows for every query cost it 30 to 60 ms for 100,000 tickets.
  if (db.dialect === 'postgres') {
    return db.all<TicketSearchRow>(
      `WITH page AS (
         SELECT t.tid, t.search_name FROM tickets t WHERE ${where}
         ORDER BY t.search_name NULLS FIRST, t.tid LIMIT ?
       )
       SELECT ${columns}
       FROM page JOIN tickets t ON t.tid = page.tid LEFT JOIN checkins c ON c.tid = t.tid
       ORDER BY page.search_name NULLS FIRST, page.tid`,
      params,
    );
  }
  return db.all<TicketSearchRow>(
    `SELECT ${columns}
     FROM tickets t LEFT JOIN checkins c ON c.tid = t.tid
     WHERE ${where}
     ORDER BY t.search_name, t.tid
     LIMIT ?`,
    params,
  );
}

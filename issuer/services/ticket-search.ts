/**
 * Ticket search for a supervisor (docs/protocol.md "Ticket search"): by holder name (accent- and
 * case-insensitive, partial: every word of the query anywhere in the name), short id or ticket id, within the
 * event of the scanner key that asks. Reads only. Each result carries what the check-in answer carries beside the
 * verdict: attention, handouts and party (docs/protocol.md "Ticket search"), read for the whole page of results
 * in a few statements, never one per result (npm run bench:search).
 */
import { mayCall, type ScannerKeyRole } from '../../protocol/access.js';
import { attentionOf, type AttentionRule } from '../../protocol/attention.js';
import type { EntryPolicy } from '../../protocol/door.js';
import { handoutsOf, mergeHandouts, type HandoutGiven, type HandoutItem } from '../../protocol/handouts.js';
import { countsOf, partySizeOf, partyState } from '../../protocol/party.js';
import {
  idQuery,
  MAX_SEARCH_QUERY_LENGTH,
  MAX_SEARCH_RESULTS,
  searchTokens,
  shortIdOf,
  type TicketSearchAnswer,
} from '../../protocol/search-name.js';
import { errors } from '../error-catalogue.js';
import type { Sql } from '../store/sql.js';
import { ticketRuleOf, typeRulesOf } from '../store/attention-notes.js';
import { findEvent } from '../store/events.js';
import { givenOfTickets, parseItems, typeHandoutListsOf } from '../store/handouts.js';
import { searchTickets, type TicketSearchRow } from '../store/ticket-search.js';

/** What a page of results needs beside its rows, read once for the page. */
interface PageContext {
  typeRules: ReadonlyMap<string, AttentionRule>;
  typeHandouts: ReadonlyMap<string, HandoutItem[]>;
  given: ReadonlyMap<string, Array<HandoutGiven & { item: string }>>;
  entryPolicy: EntryPolicy;
}

function resultOf(row: TicketSearchRow, page: PageContext, nowUnix: number): TicketSearchAnswer['results'][number] {
  // The status endpoint's order (services/ticket-status.ts): an annulled check-in is none.
  const live = row.state !== null && row.state !== 'annulled';
  const status = row.revoked_at !== null ? 'revoked' : live ? 'checked_in' : nowUnix > row.exp ? 'expired' : 'valid';
  const result: TicketSearchAnswer['results'][number] = {
    tid: row.tid,
    short_id: shortIdOf(row.tid),
    holder_name: row.holder_name,
    ticket_type: row.ticket_type,
    status,
    presence: row.state,
    checked_in_at: live ? row.checked_in_at : null,
  };
  // The check-in answer's extension, by the same rule (docs/protocol.md "Attention notes (project extension)"):
  // the type's note first, then the ticket's; absent when neither has a flag or a note.
  const attention = attentionOf(row.ticket_type === null ? null : page.typeRules.get(row.ticket_type), ticketRuleOf(row));
  if (attention !== null) result.attention = attention;
  // The status answer's extensions, by the same rules (services/handouts.ts handoutsForTicket, store/party.ts
  // partyOfTicket): absent for a ticket without items, and for a ticket of one person.
  const items = mergeHandouts(row.ticket_type === null ? null : page.typeHandouts.get(row.ticket_type), parseItems(row.handouts));
  if (items.length > 0) result.handouts = handoutsOf(items, page.given.get(row.tid) ?? []);
  const size = partySizeOf(row.party);
  if (size > 1) {
    const counts =
      row.state === null ? undefined : { state: row.state, party_inside: row.party_inside, party_admitted: row.party_admitted };
    result.party = partyState(size, countsOf(counts), page.entryPolicy);
  }
  return result;
}

/** Why a query cannot be searched, or null: the caller answers 400 with it. */
export function queryProblem(query: string): string | null {
  if (query.length > MAX_SEARCH_QUERY_LENGTH) return `is longer than ${MAX_SEARCH_QUERY_LENGTH} characters`;
  if (searchTokens(query).length === 0 && idQuery(query) === null) return 'has no letter or digit to search for';
  return null;
}

export async function ticketSearch(
  db: Sql,
  caller: { eid: string; role: ScannerKeyRole },
  query: string,
  nowUnix: number,
): Promise<TicketSearchAnswer> {
  if (!mayCall(caller.role, 'issuer.search')) throw errors.forbiddenSearch();
  const problem = queryProblem(query);
  if (problem !== null) throw errors.invalidField('q', problem);
  const id = idQuery(query);
  const rows = await searchTickets(db, {
    eid: caller.eid,
    tokens: searchTokens(query),
    tid: id !== null && 'tid' in id ? id.tid : undefined,
    shortId: id !== null && 'shortId' in id ? id.shortId : undefined,
    limit: MAX_SEARCH_RESULTS + 1,
  });
  const shown = rows.slice(0, MAX_SEARCH_RESULTS);
  return {
    results: shown.length === 0 ? [] : await withPage(db, caller.eid, shown, nowUnix),
    more: rows.length > MAX_SEARCH_RESULTS,
  };
}

/**
 * The results of one page: the event's type rules and type items (few), its entry policy, and the handouts given
 * to the page's tickets, four statements whatever the page's length.
 */
async function withPage(db: Sql, eid: string, rows: readonly TicketSearchRow[], nowUnix: number): Promise<TicketSearchAnswer['results']> {
  const page: PageContext = {
    typeRules: new Map((await typeRulesOf(db, eid)).map((rule) => [rule.ticket_type, rule])),
    typeHandouts: new Map((await typeHandoutListsOf(db, eid)).map((list) => [list.ticket_type, list.items])),
    given: await givenOfTickets(
      db,
      rows.map((row) => row.tid),
    ),
    entryPolicy: (await findEvent(db, eid))?.entry_policy ?? 'single',
  };
  return rows.map((row) => resultOf(row, page, nowUnix));
}

/**
 * Ticket search for a supervisor (docs/protocol.md "Ticket search"): by holder name (accent- and
 * case-insensitive, partial: every word of the query anywhere in the name), short id or ticket id, within the
 * event of the scanner key that asks. Reads only. Each result carries what the check-in answer carries beside the
 * verdict: attention, handouts and party (docs/protocol.md "Ticket search"), read for the whole page of results
 * in four statements (services/ticket-extras.ts), never one per result (npm run bench:search).
 */
import { mayCall, type ScannerKeyRole } from '../../protocol/access.js';
import { attentionOf, type AttentionRule } from '../../protocol/attention.js';
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
import { searchTickets, type TicketSearchRow } from '../store/ticket-search.js';
import { ticketExtras, type TicketExtras } from './ticket-extras.js';

function resultOf(
  row: TicketSearchRow,
  typeRules: ReadonlyMap<string, AttentionRule>,
  extras: TicketExtras | undefined,
  nowUnix: number,
): TicketSearchAnswer['results'][number] {
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
  const attention = attentionOf(row.ticket_type === null ? null : typeRules.get(row.ticket_type), ticketRuleOf(row));
  if (attention !== null) result.attention = attention;
  // The status answer's extensions, by the same rules: absent for a ticket without items, and for one person.
  return { ...result, ...extras };
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

/** The results of one page: the event's type rules (one statement) and what services/ticket-extras.ts reads for the page. */
async function withPage(db: Sql, eid: string, rows: readonly TicketSearchRow[], nowUnix: number): Promise<TicketSearchAnswer['results']> {
  const typeRules = new Map((await typeRulesOf(db, eid)).map((rule) => [rule.ticket_type, rule]));
  const extras = await ticketExtras(
    db,
    rows.map((row) => ({ ...row, eid })),
  );
  return rows.map((row) => resultOf(row, typeRules, extras.get(row.tid), nowUnix));
}

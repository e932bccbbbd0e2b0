/**
 * Ticket search for a supervisor (docs/protocol.md "Ticket search"): by holder name (accent- and
 * case-insensitive, partial: every word of the query anywhere in the name), short id or ticket id, within the
 * event of the scanner key that asks. Reads only.
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

function resultOf(
  row: TicketSearchRow,
  typeRules: ReadonlyMap<string, AttentionRule>,
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
  // The event's type rules: few, read once for the page of results (none to read when nothing was found).
  const typeRules = new Map(rows.length === 0 ? [] : (await typeRulesOf(db, caller.eid)).map((rule) => [rule.ticket_type, rule]));
  return {
    results: rows.slice(0, MAX_SEARCH_RESULTS).map((row) => resultOf(row, typeRules, nowUnix)),
    more: rows.length > MAX_SEARCH_RESULTS,
  };
}

/**
 * The issuer's ticket search answer as the kiosk reads it (docs/protocol.md "Ticket search"): the fields it
 * shows, checked for type, so a broken answer is a server error and never a screen built from the wrong types.
 * Fields it does not know are dropped; `attention` (a check-in note), `handouts` and `party` (docs/kiosk.md
 * "Finding a ticket") are kept when an issuer sends them well-formed, checked as the status answer's are.
 */
import { handoutsFromAnswer } from '../../../protocol/handouts.js';
import { partyStateFrom } from '../../../protocol/party.js';
import type { TicketSearchAnswer } from '../../../protocol/search-name.js';
import type { FoundTicket } from '../kiosk-api.js';

const STATUSES: readonly string[] = ['valid', 'checked_in', 'revoked', 'expired'];
const PRESENCES: readonly unknown[] = ['inside', 'outside', 'annulled', null];

const textOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** The answer's results in the kiosk's form, or null when the body is not a search answer. */
export function readSearchAnswer(body: unknown): (TicketSearchAnswer & { results: FoundTicket[] }) | null {
  if (typeof body !== 'object' || body === null) return null;
  const { results, more } = body as { results?: unknown; more?: unknown };
  if (!Array.isArray(results) || typeof more !== 'boolean') return null;
  const found: FoundTicket[] = [];
  for (const item of results as unknown[]) {
    if (typeof item !== 'object' || item === null) return null;
    const row = item as Record<string, unknown>;
    const { tid, short_id, holder_name, ticket_type, status, presence, checked_in_at } = row;
    if (typeof tid !== 'string' || typeof short_id !== 'string' || !textOrNull(holder_name) || !textOrNull(ticket_type)) return null;
    if (
      typeof status !== 'string' ||
      !STATUSES.includes(status) ||
      !PRESENCES.includes(presence ?? null) ||
      !textOrNull(checked_in_at ?? null)
    )
      return null;
    const ticket: FoundTicket = {
      tid,
      short_id,
      holder_name,
      ticket_type,
      status: status as FoundTicket['status'],
      presence: (presence ?? null) as FoundTicket['presence'],
      checked_in_at: (checked_in_at ?? null) as string | null,
    };
    const attention = attentionOf(row['attention']);
    if (attention) ticket.attention = attention;
    const handouts = handoutsFromAnswer(row);
    if (handouts !== null && handouts.length > 0) ticket.handouts = handouts;
    const party = partyStateFrom(row['party']);
    if (party !== null) ticket.party = party;
    found.push(ticket);
  }
  return { results: found, more };
}

function attentionOf(value: unknown): FoundTicket['attention'] | null {
  if (typeof value !== 'object' || value === null) return null;
  const { required, notes } = value as { required?: unknown; notes?: unknown };
  if (!Array.isArray(notes) || !notes.every((note) => typeof note === 'string')) return null;
  return { required: required === true, notes: notes as string[] };
}

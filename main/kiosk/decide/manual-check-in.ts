/**
 * docs/kiosk.md "Finding a ticket": the issuer's answer to a manual check-in → the verdict the door shows.
 * Pure. There is no scanned payload: the ticket's fields are the issuer's. `valid` is the ADMIT screen; any
 * other entry answer (already used, revoked, expired, rules, venue full) a refusal for its reason.
 */
import type { DoorCheckInResponse, IsoDateTime, RefusalReason, RefuseVerdict, Verdict, VerdictTicket } from '../../../protocol/index.js';

export function manualVerdict(response: DoorCheckInResponse, decidedAt: IsoDateTime): Verdict {
  const ticket: VerdictTicket = { tid: response.ticket.tid, eid: response.ticket.eid };
  if (response.ticket.holder_name !== undefined) ticket.holder_name = response.ticket.holder_name;
  if (response.ticket.ticket_type !== undefined) ticket.ticket_type = response.ticket.ticket_type;
  const base = { decided_at: decidedAt, offline: false, decided_by: 'issuer' as const, ticket };
  if (response.status === 'valid') return { kind: 'admit', ...base };
  const verdict: RefuseVerdict = { kind: 'refuse', reason: response.status as RefusalReason, ...base };
  if (response.status === 'already_used' && response.ticket.checked_in_at) verdict.first_used_at = response.ticket.checked_in_at;
  if (response.status === 'rule_refused' && response.rule) verdict.rule = response.rule;
  return verdict;
}

/**
 * docs/kiosk.md "Finding a ticket": the issuer's answer to a manual check-in → the verdict the door shows.
 * Pure. There is no scanned payload: the ticket's fields are the issuer's. `valid` is the ADMIT screen; any
 * other entry answer (already used, revoked, expired, rules, venue full) a refusal for its reason. A party ticket's
 * verdict carries the issuer's counts and the people let in now ("3 of 5 in, 2 to come"), and an ADMIT the ticket's
 * handouts, so the steward hands them over as after a scan (docs/kiosk.md "Party tickets", "Handouts").
 */
import { handoutsFromAnswer } from '../../../protocol/handouts.js';
import { partyStateFrom } from '../../../protocol/party.js';
import type { DoorCheckInResponse, IsoDateTime, RefusalReason, RefuseVerdict, Verdict, VerdictTicket } from '../../../protocol/index.js';

export function manualVerdict(response: DoorCheckInResponse, decidedAt: IsoDateTime, people?: number): Verdict {
  const ticket: VerdictTicket = { tid: response.ticket.tid, eid: response.ticket.eid };
  if (response.ticket.holder_name !== undefined) ticket.holder_name = response.ticket.holder_name;
  if (response.ticket.ticket_type !== undefined) ticket.ticket_type = response.ticket.ticket_type;
  const party = partyStateFrom((response as { party?: unknown }).party);
  const base = {
    decided_at: decidedAt,
    offline: false,
    decided_by: 'issuer' as const,
    ticket,
    ...(party === null ? {} : { party: people === undefined ? party : { ...party, people } }),
  };
  if (response.status === 'valid') {
    const handouts = handoutsFromAnswer(response);
    return { kind: 'admit', ...base, ...(handouts === null ? {} : { handouts }) };
  }
  const verdict: RefuseVerdict = { kind: 'refuse', reason: response.status as RefusalReason, ...base };
  if (response.status === 'already_used' && response.ticket.checked_in_at) verdict.first_used_at = response.ticket.checked_in_at;
  if (response.status === 'rule_refused' && response.rule) verdict.rule = response.rule;
  return verdict;
}

/**
 * A ticket's state for the status endpoint and `ticket show`
 * (docs/protocol.md "Status": revoked → checked_in → expired → valid).
 */
import type { Attention } from '../../protocol/attention.js';
import type { Presence } from '../../protocol/door.js';
import type { TicketState, TicketStatus } from '../../protocol/types.js';
import type { CheckinRow } from '../store/checkins.js';
import type { TicketRow } from '../store/tickets.js';

/** An annulled check-in is none (docs/protocol.md "Door operations"): the ticket is usable again. */
const liveCheckin = (checkin: CheckinRow | undefined): CheckinRow | undefined => (checkin?.state === 'annulled' ? undefined : checkin);

export function ticketState(ticket: TicketRow, checkin: CheckinRow | undefined, nowUnix: number): TicketState {
  if (ticket.revoked_at !== null) return 'revoked';
  if (liveCheckin(checkin)) return 'checked_in';
  if (nowUnix > ticket.exp) return 'expired';
  return 'valid';
}

/**
 * The spec's TicketStatus. A ticket scanned out or annulled also says so in `presence` (an extra field,
 * docs/protocol.md "Door operations"); a ticket that never used those features gets the spec's answer.
 */
export function ticketStatus(
  ticket: TicketRow,
  checkin: CheckinRow | undefined,
  nowUnix: number,
  attention: Attention | null = null,
): TicketStatus & { presence?: Presence; attention?: Attention } {
  const status: TicketStatus & { presence?: Presence; attention?: Attention } = {
    tid: ticket.tid,
    eid: ticket.eid,
    status: ticketState(ticket, checkin, nowUnix),
    issued_at: ticket.issued_at,
    checked_in_at: liveCheckin(checkin)?.checked_in_at ?? null,
  };
  if (ticket.holder_name !== null) status.holder_name = ticket.holder_name;
  if (ticket.ticket_type !== null) status.ticket_type = ticket.ticket_type;
  if (checkin !== undefined && checkin.state !== 'inside') status.presence = checkin.state;
  // docs/protocol.md "Attention notes (project extension)": only when a flag or a note applies.
  if (attention !== null) status.attention = attention;
  return status;
}

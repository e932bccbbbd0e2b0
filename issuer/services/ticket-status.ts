/**
 * A ticket's state for the status endpoint and `ticket show`
 * (docs/protocol.md "Status": revoked → checked_in → expired → valid).
 */
import type { TicketState, TicketStatus } from '../../protocol/types.js';
import type { CheckinRow } from '../store/checkins.js';
import type { TicketRow } from '../store/tickets.js';

export function ticketState(ticket: TicketRow, checkin: CheckinRow | undefined, nowUnix: number): TicketState {
  if (ticket.revoked_at !== null) return 'revoked';
  if (checkin) return 'checked_in';
  if (nowUnix > ticket.exp) return 'expired';
  return 'valid';
}

export function ticketStatus(ticket: TicketRow, checkin: CheckinRow | undefined, nowUnix: number): TicketStatus {
  const status: TicketStatus = {
    tid: ticket.tid,
    eid: ticket.eid,
    status: ticketState(ticket, checkin, nowUnix),
    issued_at: ticket.issued_at,
    checked_in_at: checkin?.checked_in_at ?? null,
  };
  if (ticket.holder_name !== null) status.holder_name = ticket.holder_name;
  if (ticket.ticket_type !== null) status.ticket_type = ticket.ticket_type;
  return status;
}

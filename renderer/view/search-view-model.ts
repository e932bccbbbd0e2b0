/**
 * docs/kiosk.md "Finding a ticket": what the search dialog shows for a found ticket and for each answer of
 * the search and of the manual check-in. Pure.
 */
import type { FoundTicket, ManualCheckInOutcome, StaffLocked, TicketSearchOutcome } from '../kiosk-bridge-types.js';
import { t, tn } from '../messages/format.js';
import { staffLockedText } from './staff-view-model.js';
import { formatClockTime, type TimeOptions } from './dates.js';
import { whereOf } from './verdict-view-model.js';

const MAX_REASON_LENGTH = 200;

export interface FoundTicketView {
  tid: string;
  name: string;
  /** The ticket's status as the issuer says it (`data-status`). */
  dataStatus: FoundTicket['status'];
  /** Status (with the check-in time), presence, type, short id: one line each. */
  lines: string[];
  /** The check-in notes the issuer sent with it, or null. */
  notes: string | null;
  /** docs/kiosk.md "Finding a ticket": one line per handout item (given of due, and the last one's when and where). */
  handouts: string[];
  /** A party ticket's size and counts (the PARTY screen's words), or null for a ticket of one person. */
  party: { size: string; known: string; remaining: number } | null;
}

export function foundTicketView(ticket: FoundTicket, time: TimeOptions = {}): FoundTicketView {
  const status =
    ticket.status === 'checked_in' && ticket.checked_in_at
      ? t('lookup.status.checked_in_at', { time: formatClockTime(ticket.checked_in_at, time) })
      : t(`lookup.status.${ticket.status}`);
  const lines = [ticket.presence ? `${status} · ${t(`search.presence.${ticket.presence}`)}` : status];
  if (ticket.ticket_type) lines.push(t('lookup.ticket_type', { type: ticket.ticket_type }));
  lines.push(ticket.short_id);
  const notes = ticket.attention?.notes.length ? t('search.notes', { notes: ticket.attention.notes.join(' · ') }) : null;
  const handouts = (ticket.handouts ?? []).map((handout) => {
    const given = tn('search.handout', handout.count, { item: handout.item, given: handout.given.length });
    const last = handout.given[handout.given.length - 1];
    return last === undefined
      ? given
      : `${given} · ${t('handout.given_at', { time: formatClockTime(last.at, time), where: whereOf(last) })}`;
  });
  const party =
    ticket.party === undefined
      ? null
      : {
          size: tn('party.size', ticket.party.size),
          known: tn('party.known', ticket.party.remaining, { admitted: ticket.party.admitted_total }),
          remaining: ticket.party.remaining,
        };
  return { tid: ticket.tid, name: ticket.holder_name ?? t('search.no_name'), dataStatus: ticket.status, lines, notes, handouts, party };
}

/** The dialog's line for a search answer without results to list (null: list the results). */
export function searchProblem(outcome: TicketSearchOutcome | StaffLocked | null): string | null {
  if (outcome === null) return t('search.failed');
  switch (outcome.type) {
    case 'results':
      return outcome.results.length === 0 ? t('search.none') : null;
    case 'offline':
      return t('search.offline');
    case 'not_allowed':
      return t('search.not_allowed');
    case 'invalid_query':
      return t('search.invalid_query');
    case 'not_enrolled':
      return t('lookup.not_enrolled');
    case 'scanner_unauthorized':
      return t('reason.scanner_unauthorized');
    case 'staff_locked':
      return staffLockedText(outcome) ?? t('search.staff_locked');
  }
}

/** The dialog's line for a manual check-in that gave no verdict (null: a verdict, which the door shows). */
export function manualProblem(outcome: ManualCheckInOutcome | StaffLocked | null): string | null {
  if (outcome === null) return t('search.failed');
  switch (outcome.type) {
    case 'verdict':
      return null;
    case 'offline':
      return t('search.manual_offline');
    case 'not_allowed':
      return t('search.manual_not_allowed');
    case 'not_found':
      return t('search.not_found');
    case 'not_enrolled':
      return t('lookup.not_enrolled');
    case 'scanner_unauthorized':
      return t('reason.scanner_unauthorized');
    case 'staff_locked':
      return staffLockedText(outcome) ?? t('search.staff_locked');
  }
}

/** A manual check-in's reason: required, 1 to 200 characters once trimmed; null when there is none. */
export function manualReason(text: string): string | null {
  const reason = text.trim();
  return reason.length > 0 && reason.length <= MAX_REASON_LENGTH ? reason : null;
}

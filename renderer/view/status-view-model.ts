/** What the Status lookup screen shows for a lookup answer. Pure. */
import type { StatusLookupResult, TicketStatus } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { formatClockTime, formatEventDate, type TimeOptions } from './dates.js';

export interface StatusView {
  /** `data-status`: the ticket state, or what kept the lookup from answering. */
  dataStatus: TicketStatus['status'] | Exclude<StatusLookupResult['type'], 'status'> | 'layout_mismatch' | 'failed';
  headline: string;
  /** The holder line, "Holder: {name}" with `{name}` left in for the screen to put the name element (screens/holder-name.ts). */
  holder?: { text: string; name: string };
  details: string[];
}

export function statusView(result: StatusLookupResult, time: TimeOptions = {}): StatusView {
  switch (result.type) {
    case 'status':
      return ticketStatusView(result.status, time);
    case 'not_found':
      return { dataStatus: 'not_found', headline: t('lookup.not_found'), details: [] };
    case 'not_a_ticket':
      return { dataStatus: 'not_a_ticket', headline: t('lookup.not_a_ticket'), details: [] };
    case 'not_enrolled':
      return { dataStatus: 'not_enrolled', headline: t('lookup.not_enrolled'), details: [] };
    case 'scanner_unauthorized':
      return { dataStatus: 'scanner_unauthorized', headline: t('reason.scanner_unauthorized'), details: [] };
    case 'unavailable':
      return { dataStatus: 'unavailable', headline: t('lookup.unavailable'), details: [] };
  }
}

export function ticketStatusView(status: TicketStatus, time: TimeOptions = {}): StatusView {
  const details: string[] = [];
  if (status.ticket_type) details.push(t('lookup.ticket_type', { type: status.ticket_type }));
  details.push(t('lookup.issued_at', { date: formatEventDate(status.issued_at, time) }));
  details.push(t('lookup.ticket_id', { tid: status.tid }));
  const holder = status.holder_name ? { text: t('lookup.holder', { name: '{name}' }), name: status.holder_name } : undefined;
  return { dataStatus: status.status, headline: stateHeadline(status, time), ...(holder ? { holder } : {}), details };
}

function stateHeadline(status: TicketStatus, time: TimeOptions): string {
  switch (status.status) {
    case 'valid':
      return t('lookup.status.valid');
    case 'checked_in':
      return status.checked_in_at
        ? t('lookup.status.checked_in_at', { time: formatClockTime(status.checked_in_at, time) })
        : t('lookup.status.checked_in');
    case 'revoked':
      return t('lookup.status.revoked');
    case 'expired':
      return t('lookup.status.expired');
  }
}

export function layoutMismatchStatusView(): StatusView {
  return { dataStatus: 'layout_mismatch', headline: t('reason.layout_mismatch'), details: [] };
}

export function failedStatusView(): StatusView {
  return { dataStatus: 'failed', headline: t('lookup.failed'), details: [] };
}

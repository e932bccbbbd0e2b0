/**
 * What the dashboard says, as pure functions of the API's data: numbers,
 * ages, alert sentences, the default event. No DOM, so they are unit-tested
 * in Node (test/unit/dashboard/format.test.ts).
 */
import type { AlertKind, AlertView, EventSummary, ScannerView } from '../issuer/dashboard-api.js';

const numberFormat = new Intl.NumberFormat('en-US');

export const formatCount = (value: number): string => numberFormat.format(value);

/** "24.7 %" of a whole; "–" when there is nothing to divide by. */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  const value = (part / whole) * 100;
  return `${value >= 99.95 && part < whole ? '99.9' : value.toFixed(1)} %`;
}

/** How long ago, in words a supervisor reads at a glance: "just now", "12 s ago", "3 min ago". */
export function formatAge(ms: number): string {
  if (ms < 5_000) return 'just now';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** A duration in words: "45 s", "3 min 5 s", "2 h 10 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}

/** Local wall-clock time, to the second: "21:04:09". */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Local date and time: "1 Dec 2026, 19:00". */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export const labelOrNone = (value: string | null, none: string): string => (value === null || value === '' ? none : value);

/** Each alert kind: a short tag (shown in words and with a symbol, never by colour alone) and a heading. */
export const ALERT_LABELS: Record<AlertKind, { tag: string; symbol: string; title: string; counted: string }> = {
  offline_double_admission: {
    tag: 'DOUBLE ADMISSION?',
    symbol: '⚠',
    title: 'Possible double admission (offline scan arrived late)',
    counted: 'possible double admission',
  },
  merged_double_admission: {
    tag: 'DOUBLE ADMISSION',
    symbol: '⚠',
    title: 'Double admission found by an import (checked in on two copies of the issuer)',
    counted: 'double admission at import',
  },
  forged_signature: { tag: 'FORGED', symbol: '✖', title: 'Forged ticket reported (signature did not verify)', counted: 'forged' },
  revoked_ticket: { tag: 'REVOKED', symbol: '⊘', title: 'Revoked ticket scanned', counted: 'revoked' },
  wrong_event: { tag: 'WRONG EVENT', symbol: '⇄', title: 'Ticket for another event scanned', counted: 'wrong event' },
};

const where = (alert: AlertView): string => {
  const scanner = alert.scanner_name ?? alert.scanner_id ?? 'an unknown scanner';
  return alert.gate_id === null ? `by ${scanner}` : `at gate ${alert.gate_id} by ${scanner}`;
};

const holder = (alert: AlertView): string =>
  alert.holder_name === null ? `ticket ${alert.tid ?? '(no id)'}` : `${alert.holder_name} (ticket ${alert.tid ?? '?'})`;

/** One sentence per alert, naming who, where and when. */
export function describeAlert(alert: AlertView): string {
  const scanned = alert.scanned_at === null ? '' : ` at ${formatClock(alert.scanned_at)}`;
  switch (alert.kind) {
    case 'offline_double_admission': {
      const first = alert.first_check_in;
      const firstText =
        first === null
          ? 'It had already been checked in.'
          : `It had already been checked in at ${formatClock(first.checked_in_at)}${first.gate_id === null ? '' : ` at gate ${first.gate_id}`} by ${first.scanner}.`;
      const delay = alert.delay_seconds === null ? '' : `, received ${formatDuration(alert.delay_seconds)} later`;
      return `${holder(alert)} was scanned${scanned} ${where(alert)}${delay}. ${firstText} If that scanner was offline it let the holder in: two people may have entered on one ticket.`;
    }
    case 'merged_double_admission': {
      const first = alert.first_check_in;
      const kept =
        first === null
          ? ''
          : ` The check-in that stands is from ${formatClock(first.checked_in_at)}${first.gate_id === null ? '' : ` at gate ${first.gate_id}`} by ${first.scanner}.`;
      return `${holder(alert)} was also checked in${scanned} ${where(alert)} on another copy of the issuer, found when its data was imported: two people may have entered on one ticket.${kept}`;
    }
    case 'forged_signature':
      return `A code claiming ticket ${alert.tid ?? '(no id)'} failed signature verification${scanned} ${where(alert)}. Someone may be using a forged ticket.`;
    case 'revoked_ticket':
      return `${holder(alert)}, revoked, was presented${scanned} ${where(alert)} and refused.`;
    case 'wrong_event':
      return `${holder(alert)}${alert.ticket_event_name === null ? ', for another event,' : `, for "${alert.ticket_event_name}",`} was presented${scanned} ${where(alert)} and refused.`;
  }
}

/** The event to show first: one in progress, else the next to start, else the latest. */
export function defaultEvent(events: readonly EventSummary[], nowMs: number): EventSummary | null {
  const running = events.find((event) => Date.parse(event.date) <= nowMs && nowMs <= Date.parse(event.ends_at));
  if (running) return running;
  const upcoming = events.filter((event) => Date.parse(event.date) > nowMs).sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  if (upcoming[0]) return upcoming[0];
  return [...events].sort((a, b) => Date.parse(b.date) - Date.parse(a.date))[0] ?? null;
}

/** "Online" or why not, in words (the dot next to it is decoration only). */
export function scannerStateText(scanner: ScannerView, nowMs: number): string {
  if (scanner.revoked) return 'Revoked';
  if (Date.parse(scanner.expires_at) <= nowMs) return 'Key expired';
  if (scanner.online) return 'Online';
  return `No contact for ${formatDuration((nowMs - Date.parse(scanner.last_contact_at)) / 1000)}`;
}

export const scannerLabel = (scanner: Pick<ScannerView, 'scanner_name' | 'scanner_id'>): string =>
  scanner.scanner_name ?? scanner.scanner_id;

/** The message on the sign-in screen for an API refusal. */
export function signInProblem(problem: { status: number; reason?: string; retryAfterSeconds?: number }): string {
  if (problem.status === 429)
    return `Too many wrong tokens from this computer. Try again in ${formatDuration(problem.retryAfterSeconds ?? 60)}.`;
  if (problem.reason === 'admin_token_not_set') return 'This issuer has no admin token yet.';
  if (problem.status === 401) return 'That token is not right (or it was replaced). Check it and try again.';
  return `The issuer answered with an error (HTTP ${problem.status}). Try again.`;
}

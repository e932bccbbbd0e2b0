/**
 * What the dashboard says, as pure functions of the API's data: numbers,
 * ages, alert sentences, the default event, in the current language
 * (./messages/format.ts). No DOM, so they are unit-tested in Node
 * (test/unit/dashboard/format.test.ts).
 */
import type { AlertKind, AlertView, EventSummary, ScannerView, StaffBadgeView, StaffMemberView } from '../issuer/dashboard-api.js';
import { locale, t, tn } from './messages/format.js';

/** Whole numbers in the dashboard's language ("1,234", "1.234", "1 234"). */
export const formatCount = (value: number): string => new Intl.NumberFormat(locale()).format(value);

/** "24.7 %" of a whole; "–" when there is nothing to divide by. */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  const value = (part / whole) * 100;
  // Never "100.0 %" while someone is still missing.
  const shown = value >= 99.95 && part < whole ? 99.9 : value;
  const number = new Intl.NumberFormat(locale(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(shown);
  return t('number.percent', { value: number });
}

/** How long ago, in words a supervisor reads at a glance: "just now", "12 s ago", "3 min ago". */
export function formatAge(ms: number): string {
  if (ms < 5_000) return t('age.just_now');
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return tn('age.seconds', seconds);
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return tn('age.minutes', minutes);
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return tn('age.hours', hours);
  return tn('age.days', Math.floor(hours / 24));
}

/** A duration in words: "45 s", "3 min 5 s", "2 h 10 min". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t('duration.seconds', { seconds: s });
  if (s < 3600) {
    const minutes = Math.floor(s / 60);
    return s % 60 ? t('duration.minutes_seconds', { minutes, seconds: s % 60 }) : t('duration.minutes', { minutes });
  }
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return minutes ? t('duration.hours_minutes', { hours, minutes }) : t('duration.hours', { hours });
}

/** Local wall-clock time, to the second, 24-hour: "21:04:09". */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** Local date and time, 24-hour: "1 Dec 2026, 19:00" (en), "1. Dez. 2026, 19:00" (de). */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(locale(), {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
}

export const labelOrNone = (value: string | null, none: string): string => (value === null || value === '' ? none : value);

export interface AlertLabel {
  tag: string;
  symbol: string;
  title: string;
  counted: string;
}

const ALERT_SYMBOLS: Record<AlertKind, string> = {
  offline_double_admission: '⚠',
  merged_double_admission: '⚠',
  forged_signature: '✖',
  revoked_ticket: '⊘',
  wrong_event: '⇄',
};

/** The alert kinds, in the order the page lists them. */
export const ALERT_KINDS = Object.keys(ALERT_SYMBOLS) as AlertKind[];

/** Each alert kind: a short tag (shown in words and with a symbol, never by colour alone) and a heading, in the current language. */
export function alertLabel(kind: AlertKind): AlertLabel {
  return {
    tag: t(`alert.${kind}.tag`),
    symbol: ALERT_SYMBOLS[kind],
    title: t(`alert.${kind}.title`),
    counted: t(`alert.${kind}.counted`),
  };
}

const where = (alert: AlertView): string => {
  const scanner = alert.scanner_name ?? alert.scanner_id ?? t('alert.unknown_scanner');
  return alert.gate_id === null ? t('alert.where.no_gate', { scanner }) : t('alert.where.gate', { gate: alert.gate_id, scanner });
};

const holder = (alert: AlertView): string =>
  alert.holder_name === null
    ? t('alert.holder.unnamed', { tid: alert.tid ?? t('alert.no_id') })
    : t('alert.holder.named', { name: alert.holder_name, tid: alert.tid ?? t('alert.no_id') });

const firstGate = (gate: string | null): string => (gate === null ? '' : t('alert.first.gate', { gate }));

/** One sentence per alert, naming who, where and when. */
export function describeAlert(alert: AlertView): string {
  const scanned = alert.scanned_at === null ? '' : t('alert.scanned_at', { time: formatClock(alert.scanned_at) });
  const common = { holder: holder(alert), scanned, where: where(alert) };
  switch (alert.kind) {
    case 'offline_double_admission': {
      const first = alert.first_check_in;
      return t('alert.offline_double_admission.text', {
        ...common,
        delay: alert.delay_seconds === null ? '' : t('alert.delay', { duration: formatDuration(alert.delay_seconds) }),
        first:
          first === null
            ? t('alert.first.unknown')
            : t('alert.first.known', { time: formatClock(first.checked_in_at), gate: firstGate(first.gate_id), scanner: first.scanner }),
      });
    }
    case 'merged_double_admission': {
      const first = alert.first_check_in;
      const kept =
        first === null
          ? ''
          : t('alert.merged.kept', { time: formatClock(first.checked_in_at), gate: firstGate(first.gate_id), scanner: first.scanner });
      return t('alert.merged_double_admission.text', { ...common, kept });
    }
    case 'forged_signature':
      return t('alert.forged_signature.text', { tid: alert.tid ?? t('alert.no_id'), scanned, where: common.where });
    case 'revoked_ticket':
      return t('alert.revoked_ticket.text', common);
    case 'wrong_event':
      return alert.ticket_event_name === null
        ? t('alert.wrong_event.text', common)
        : t('alert.wrong_event.text_named', { ...common, event: alert.ticket_event_name });
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
  if (scanner.revoked) return t('scanner.state.revoked');
  if (Date.parse(scanner.expires_at) <= nowMs) return t('scanner.state.key_expired');
  if (scanner.online) return t('scanner.state.online');
  return t('scanner.state.no_contact', { duration: formatDuration((nowMs - Date.parse(scanner.last_contact_at)) / 1000) });
}

export const scannerLabel = (scanner: Pick<ScannerView, 'scanner_name' | 'scanner_id'>): string =>
  scanner.scanner_name ?? scanner.scanner_id;

/** The message on the sign-in screen for an API refusal. */
export function signInProblem(problem: { status: number; reason?: string; retryAfterSeconds?: number }): string {
  if (problem.status === 429) return t('signin.too_many', { duration: formatDuration(problem.retryAfterSeconds ?? 60) });
  if (problem.reason === 'admin_token_not_set') return t('signin.no_token_yet');
  if (problem.status === 401) return t('signin.wrong_token');
  return t('signin.http_error', { status: problem.status });
}

export type BadgeState = 'revoked' | 'expired' | 'not_yet' | 'valid';

/** Revoked first (it is final), then the badge's own window against the issuer's time. */
export function badgeState(badge: Pick<StaffBadgeView, 'revoked_at' | 'not_before' | 'expires_at'>, nowMs: number): BadgeState {
  if (badge.revoked_at !== null) return 'revoked';
  if (Date.parse(badge.expires_at) <= nowMs) return 'expired';
  if (Date.parse(badge.not_before) > nowMs) return 'not_yet';
  return 'valid';
}

/** A role in words; a role this page does not know yet is shown as the issuer names it. */
export function roleText(role: string): string {
  switch (role) {
    case 'steward':
      return t('badges.role.steward');
    case 'supervisor':
      return t('badges.role.supervisor');
    case 'technician':
      return t('badges.role.technician');
    default:
      return role;
  }
}

/** The status cell in words: "Valid", "Expired", "Revoked 28/11/2026, 00:40 · reason: left the crew"… */
export function badgeStateText(badge: StaffBadgeView, nowMs: number): string {
  const state = badgeState(badge, nowMs);
  if (state !== 'revoked') return t(`badges.state.${state}`);
  return (
    t('badges.state.revoked', { time: formatDateTime(badge.revoked_at!) }) +
    (badge.revoked_reason === null ? t('badges.no_reason') : t('badges.reason', { reason: badge.revoked_reason }))
  );
}

/** A staff member in words: "Lee Supervisor (Supervisor, staff id s-…)", or "staff id steward-7" for an id without a badge. */
export function staffText(member: StaffMemberView): string {
  return member.name === null || member.role === null
    ? t('activity.staff.id', { sid: member.staff_id })
    : t('activity.staff.badge', { name: member.name, role: roleText(member.role), sid: member.staff_id });
}

/** Date and time wording for the screens; the time zone is a parameter so tests do not depend on the machine's. */
import { locale } from '../messages/format.js';

export interface TimeOptions {
  /** IANA zone; undefined means the kiosk's own zone. */
  timeZone?: string;
  locale?: string;
}

/** "19:42": door staff compare it with the clock on the wall, so no date. */
export function formatClockTime(iso: string, options: TimeOptions = {}): string {
  return format(iso, { hour: '2-digit', minute: '2-digit' }, options);
}

/** "Sat, 14 Mar 2026, 19:30" in en-GB. */
export function formatEventDate(iso: string, options: TimeOptions = {}): string {
  return format(iso, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }, options);
}

function format(iso: string, fields: Intl.DateTimeFormatOptions, options: TimeOptions): string {
  const date = new Date(iso);
  // An unreadable timestamp is shown as received rather than as "Invalid Date".
  if (Number.isNaN(date.getTime())) return iso;
  const zone = options.timeZone === undefined ? {} : { timeZone: options.timeZone };
  // 24-hour clock in every language the kiosk speaks (door staff compare with the venue's clocks).
  const clock: Intl.DateTimeFormatOptions = 'hour' in fields ? { hourCycle: 'h23' } : {};
  return new Intl.DateTimeFormat(options.locale ?? locale(), { ...fields, ...clock, ...zone }).format(date);
}

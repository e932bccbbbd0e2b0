/**
 * Check-out at a set time (docs/protocol.md "Check-out at a set time"): per event, a daily local time (`HH:MM` in
 * the event's time zone) or one moment (RFC 3339) at which everyone inside is checked out. ONE pure function says
 * which moment has passed last, so the issuer (which records the exits) and an offline kiosk (which forgets who it
 * let in before it) never disagree.
 */
import { isTimeZone, localParts } from './check-in-rules.js';

/** The setting as the issuer keeps it and the heartbeat answer carries it. */
export interface ExitAllSetting {
  /** `HH:MM` (every day, local to `time_zone`) or an RFC 3339 moment. */
  at: string;
  /** IANA time zone of the daily time (`UTC` for a moment). */
  time_zone: string;
  /** When the setting was made: moments before it do not apply (they were before anyone asked for them). */
  since: string;
}

const DAILY = /^([01]\d|2[0-3]):([0-5]\d)$/;
const MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

export const isDailyTime = (at: string): boolean => DAILY.test(at);

/** `HH:MM`, an RFC 3339 moment (normalised to UTC), or null for `none`; else a sentence saying what is wrong. */
export function parseExitAllAt(text: string): { ok: true; at: string | null } | { ok: false; problem: string } {
  if (text === 'none') return { ok: true, at: null };
  if (DAILY.test(text)) return { ok: true, at: text };
  if (MOMENT.test(text) && !Number.isNaN(Date.parse(text))) {
    return { ok: true, at: new Date(Date.parse(text)).toISOString().replace(/\.000Z$/, 'Z') };
  }
  return { ok: false, problem: `"${text}" is not a daily time HH:MM (04:00), an RFC 3339 moment (2026-07-12T04:00:00Z) or none` };
}

export { isTimeZone };

/** The instant a local date and minute of the day fall on in a time zone (a time a clock skips: just after it). */
function localToUtc(date: string, minutes: number, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  const offsetAt = (ms: number): number => {
    const parts = localParts(ms, timeZone);
    const [y, m, d] = parts.date.split('-').map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d, Math.floor(parts.minutes / 60), parts.minutes % 60) - Math.floor(ms / 60_000) * 60_000;
  };
  const first = wall - offsetAt(wall);
  return wall - offsetAt(first);
}

/**
 * The last moment of the setting at or before `nowMs` and after it was made, or null: none has passed yet. Every
 * admission before it has ended at it (docs/protocol.md "Check-out at a set time").
 */
export function lastExitAllMoment(setting: ExitAllSetting | null | undefined, nowMs: number): number | null {
  if (!setting) return null;
  const sinceMs = Date.parse(setting.since);
  let moment: number | null = null;
  const match = DAILY.exec(setting.at);
  if (match) {
    const minutes = Number(match[1]) * 60 + Number(match[2]);
    // Today's, yesterday's or the day before's local date: the latest of their moments not after now.
    for (const back of [0, 1, 2]) {
      const candidate = localToUtc(localParts(nowMs - back * DAY_MS, setting.time_zone).date, minutes, setting.time_zone);
      if (candidate <= nowMs && (moment === null || candidate > moment)) moment = candidate;
    }
  } else {
    const at = Date.parse(setting.at);
    if (!Number.isNaN(at) && at <= nowMs) moment = at;
  }
  return moment !== null && moment > sinceMs ? moment : null;
}

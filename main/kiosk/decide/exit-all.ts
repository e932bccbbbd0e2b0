/**
 * Check-out at a set time, offline (docs/kiosk.md "Check-out at a set time"; docs/protocol.md "Check-out at a set
 * time"): the last heartbeat's setting, and what this kiosk still counts as "admitted here" after a moment passed.
 * Pure: the issuer's moment function (protocol/exit-all.ts) with the kiosk's facts as data.
 */
import { isTimeZone, lastExitAllMoment, parseExitAllAt, type ExitAllSetting } from '../../../protocol/exit-all.js';
import type { HeartbeatResponse, IsoDateTime } from '../../../protocol/index.js';

/** A heartbeat answer as the kiosk keeps it (door-operations.ts LastHeartbeat has this shape). */
interface LastHeartbeat {
  response: HeartbeatResponse;
  received_at: IsoDateTime;
}

/** The setting of the last heartbeat, or null: none, or one this kiosk cannot read (then it keeps every admission). */
export function exitAllSetting(heartbeat: LastHeartbeat | null): ExitAllSetting | null {
  const response = heartbeat?.response;
  const at = response?.exit_all_at;
  const timeZone = response?.exit_all_time_zone;
  const since = response?.exit_all_since;
  if (typeof at !== 'string' || typeof timeZone !== 'string' || typeof since !== 'string') return null;
  const parsed = parseExitAllAt(at);
  if (!parsed.ok || parsed.at === null || !isTimeZone(timeZone) || Number.isNaN(Date.parse(since))) return null;
  return { at: parsed.at, time_zone: timeZone, since };
}

/**
 * This kiosk's first admission of the ticket since the last moment passed (its admissions before it ended there, as
 * the issuer checked them out), or undefined: what "already admitted here" means on a re-entry event.
 */
export function admittedSinceCheckOut(
  heartbeat: LastHeartbeat | null,
  admissions: readonly IsoDateTime[],
  nowMs: number,
): IsoDateTime | undefined {
  const moment = lastExitAllMoment(exitAllSetting(heartbeat), nowMs);
  return moment === null ? admissions[0] : admissions.find((at) => Date.parse(at) >= moment);
}

/** Inside as the last heartbeat said, unless a moment passed since it came: then nobody (the Ready screen's count). */
export function insideAfterCheckOut(heartbeat: LastHeartbeat, nowMs: number): number {
  const moment = lastExitAllMoment(exitAllSetting(heartbeat), nowMs);
  return moment !== null && moment > Date.parse(heartbeat.received_at) ? 0 : heartbeat.response.occupancy.inside;
}

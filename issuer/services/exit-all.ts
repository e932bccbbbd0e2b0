/**
 * Check-out at a set time (docs/protocol.md "Check-out at a set time"). The exits of a moment are recorded in the
 * write path, exactly once: lazily, in the transaction of the next check-in of the event, before it is decided; before
 * a heartbeat or an occupancy read answers; and by a timer of `serve` (issuer/app.ts). Whichever comes first claims
 * the moment (store/exit-all.ts claimMoment); the others find it done.
 */
import { isDailyTime, isTimeZone, lastExitAllMoment, parseExitAllAt, type ExitAllSetting } from '../../protocol/exit-all.js';
import { AdminError } from '../error-catalogue.js';
import { findCheckInRules } from '../store/check-in-rules.js';
import { findEvent } from '../store/events.js';
import { claimMoment, eventsWithExitAll, exitAllOf, exitInsideBefore, saveExitAll, type ExitAllRow } from '../store/exit-all.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { announce } from './webhooks.js';

/** The moment due now (passed, after the setting, not yet done), or null. */
export function dueMoment(row: ExitAllRow | undefined, nowMs: number): string | null {
  const moment = lastExitAllMoment(row, nowMs);
  if (moment === null) return null;
  if (row!.done !== null && Date.parse(row!.done) >= moment) return null;
  return new Date(moment).toISOString();
}

/**
 * In the caller's transaction: records the exits of the moment due, if one is. Returns the setting as it is after
 * (its `done` is the last moment recorded), or undefined when the event has none.
 */
export async function applyDueExitAll(db: Sql, eid: string, now: Date): Promise<ExitAllRow | undefined> {
  const row = await exitAllOf(db, eid);
  const moment = dueMoment(row, now.getTime());
  if (row === undefined || moment === null) return row;
  await claimMoment(db, row, moment);
  await checkOutAt(db, eid, moment, now);
  return { ...row, done: moment };
}

/**
 * In the caller's transaction: checks out everyone of the event inside since before `moment` (or only `tid`), and
 * tells each exit to the webhooks as the door's exits are (docs/issuer.md "Webhooks": `checkin.exited`, actor
 * `auto`, at the moment, at no gate).
 */
export async function checkOutAt(db: Sql, eid: string, moment: string, now: Date, tid?: string): Promise<void> {
  for (const exit of await exitInsideBefore(db, eid, moment, now.toISOString(), tid)) {
    await announce(
      db,
      'checkin.exited',
      eid,
      { eid, tid: exit.tid, ticket_type: exit.ticket_type, at: moment, gate_id: null, scanner_id: null, staff_id: null, actor: 'auto' },
      now.toISOString(),
    );
  }
}

/** The write job of one event's due moment (heartbeat, occupancy read, CLI). */
export const applyExitAllWrite = namedJob('apply-exit-all', async (db, args: { eid: string; now: string }) => {
  await applyDueExitAll(db, args.eid, new Date(args.now));
});

/** The serve timer's job: every event's due moment. */
export const applyAllExitAllWrite = namedJob('apply-exit-all-events', async (db, args: { now: string }) => {
  for (const row of await eventsWithExitAll(db)) await applyDueExitAll(db, row.eid, new Date(args.now));
});

/** Before reading the event's occupancy: a moment due is recorded first (a read costs one row when none is). */
export async function settleExitAll(database: SqlDatabase, eid: string, now = new Date()): Promise<void> {
  if (dueMoment(await exitAllOf(database.read, eid), now.getTime()) === null) return;
  await database.write(applyExitAllWrite({ eid, now: now.toISOString() }));
}

/** Every event's due moment (the serve timer; a read of the settings when none is due). */
export async function settleAllExitAll(database: SqlDatabase, now = new Date()): Promise<void> {
  const rows = await eventsWithExitAll(database.read);
  if (!rows.some((row) => dueMoment(row, now.getTime()) !== null)) return;
  await database.write(applyAllExitAllWrite({ now: now.toISOString() }));
}

/**
 * `event set --exit-all-at`: the setting, from now on. A daily time is local to `--time-zone`, else to the time
 * zone of the event's check-in rules; an event with neither must be given one. `at` null removes it.
 */
export const setExitAllWrite = namedJob(
  'set-exit-all',
  async (db, args: { eid: string; at: string | null; timeZone: string | null; now: string }): Promise<ExitAllSetting | null> => {
    if (!(await findEvent(db, args.eid))) throw new AdminError('EVENT_NOT_FOUND', `no event ${args.eid} at this issuer`);
    if (args.at === null) {
      await saveExitAll(db, args.eid, null);
      return null;
    }
    let timeZone = args.timeZone;
    if (timeZone === null && isDailyTime(args.at)) {
      timeZone = (await findCheckInRules(db, args.eid))?.rules.time_zone ?? null;
      if (timeZone === null) {
        throw new AdminError('INVALID_ARGUMENT', `event ${args.eid} has no time zone yet: give --time-zone (e.g. Europe/Berlin)`);
      }
    }
    const setting: ExitAllSetting = { at: args.at, time_zone: timeZone ?? 'UTC', since: args.now };
    await saveExitAll(db, args.eid, setting);
    return setting;
  },
);

/** The CLI's and dashboard's spelling, checked: `HH:MM`, an RFC 3339 moment or `none`; a known time zone. */
export function parseExitAllOptions(atText: string, timeZoneText: string | undefined): { at: string | null; timeZone: string | null } {
  const parsed = parseExitAllAt(atText);
  if (!parsed.ok) throw new AdminError('INVALID_ARGUMENT', `--exit-all-at: ${parsed.problem}`);
  if (timeZoneText !== undefined && !isTimeZone(timeZoneText)) {
    throw new AdminError('INVALID_ARGUMENT', `--time-zone: "${timeZoneText}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
  }
  return { at: parsed.at, timeZone: timeZoneText ?? null };
}

/** The setting as the heartbeat answer and the dashboard show it, or null. */
export async function exitAllSettingOf(db: Sql, eid: string): Promise<ExitAllSetting | null> {
  const row = await exitAllOf(db, eid);
  return row === undefined ? null : { at: row.at, time_zone: row.time_zone, since: row.since };
}

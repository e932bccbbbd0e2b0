/** Creating an event (`ticket-issuer event create`; docs/protocol.md "The admin CLI"). */
import type { EntryPolicy } from '../../protocol/door.js';
import { AdminError } from '../error-catalogue.js';
import type { SqlDatabase } from '../store/sql.js';
import { insertEvent, type EventRow } from '../store/events.js';
import { addHours, isoUtc } from '../time.js';
import type { IdFactory } from './ids.js';

/** docs/protocol.md "The admin CLI": `--ends` defaults to the start plus 12 h. */
export const DEFAULT_EVENT_HOURS = 12;

export interface NewEvent {
  name: string;
  date: Date;
  venue: string;
  ends?: Date;
  /** docs/protocol.md "Door operations"; default single. */
  entryPolicy?: EntryPolicy;
  capacity?: number | null;
}

export async function createEvent(database: SqlDatabase, event: NewEvent, nextId: IdFactory, now: Date): Promise<EventRow> {
  const ends = event.ends ?? addHours(event.date, DEFAULT_EVENT_HOURS);
  if (ends.getTime() <= event.date.getTime()) throw new AdminError('INVALID_DATE', '--ends must be after --date');
  const row: EventRow = {
    eid: nextId(),
    name: event.name,
    date: isoUtc(event.date),
    venue: event.venue,
    ends_at: isoUtc(ends),
    created_at: isoUtc(now),
    entry_policy: event.entryPolicy ?? 'single',
    capacity: event.capacity ?? null,
  };
  await database.write((db) => insertEvent(db, row));
  return row;
}

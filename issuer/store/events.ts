import type { EntryPolicy } from '../../protocol/door.js';
import type { Sql } from './sql.js';

export interface EventRow {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
  created_at: string;
  /** docs/protocol.md "Door operations": single (the spec's one entry) or reentry. */
  entry_policy: EntryPolicy;
  /** People inside at once, or null for no limit. */
  capacity: number | null;
}

export async function insertEvent(db: Sql, event: EventRow): Promise<void> {
  await db.run(
    `INSERT INTO events (eid, name, date, venue, ends_at, created_at, entry_policy, capacity)
     VALUES (@eid, @name, @date, @venue, @ends_at, @created_at, @entry_policy, @capacity)`,
    {
      ...event,
    },
  );
}

export function findEvent(db: Sql, eid: string): Promise<EventRow | undefined> {
  return db.get<EventRow>('SELECT * FROM events WHERE eid = ?', [eid]);
}

export function listEvents(db: Sql): Promise<EventRow[]> {
  return db.all<EventRow>('SELECT * FROM events ORDER BY date');
}

/** Changes an event's door settings; false when there is no such event. */
export async function updateEventDoor(
  db: Sql,
  eid: string,
  change: { entry_policy?: EntryPolicy; capacity?: number | null },
): Promise<boolean> {
  const event = await findEvent(db, eid);
  if (!event) return false;
  await db.run('UPDATE events SET entry_policy = ?, capacity = ? WHERE eid = ?', [
    change.entry_policy ?? event.entry_policy,
    change.capacity === undefined ? event.capacity : change.capacity,
    eid,
  ]);
  return true;
}

import type { Sql } from './sql.js';

export interface EventRow {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
  created_at: string;
}

export async function insertEvent(db: Sql, event: EventRow): Promise<void> {
  await db.run(
    'INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES (@eid, @name, @date, @venue, @ends_at, @created_at)',
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

import { prepareCached, type Db } from './database.js';

export interface EventRow {
  eid: string;
  name: string;
  date: string;
  venue: string;
  ends_at: string;
  created_at: string;
}

export function insertEvent(db: Db, event: EventRow): void {
  prepareCached(
    db,
    'INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES (@eid, @name, @date, @venue, @ends_at, @created_at)',
  ).run(event);
}

export function findEvent(db: Db, eid: string): EventRow | undefined {
  return prepareCached(db, 'SELECT * FROM events WHERE eid = ?').get(eid) as EventRow | undefined;
}

export function listEvents(db: Db): EventRow[] {
  return prepareCached(db, 'SELECT * FROM events ORDER BY date').all() as EventRow[];
}

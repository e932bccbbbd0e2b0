/**
 * fillSearchNames (store/tickets.ts) on a better-sqlite3 handle, for migrate() in database.ts, which runs the
 * SQLite migrations synchronously (docs/protocol.md "Ticket search").
 */
import type Database from 'better-sqlite3';
import { searchName } from '../../protocol/search-name.js';

export function fillSearchNamesSqlite(db: Database.Database): number {
  const rows = db.prepare('SELECT tid, holder_name FROM tickets WHERE search_name IS NULL AND holder_name IS NOT NULL').all() as {
    tid: string;
    holder_name: string;
  }[];
  const update = db.prepare('UPDATE tickets SET search_name = ? WHERE tid = ?');
  for (const row of rows) update.run(searchName(row.holder_name), row.tid);
  return rows.length;
}

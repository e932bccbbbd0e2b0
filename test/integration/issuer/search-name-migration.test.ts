/**
 * Migration 10 (docs/protocol.md "Ticket search") on a real SQLite file: tickets stored before it get their
 * searchable names right after it runs; a ticket without a holder keeps none. PostgreSQL twin:
 * test/integration/postgres/search-name-migration.test.ts.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { migrate, SCHEMA_VERSION } from '../../../issuer/store/database.js';
import { MIGRATIONS, SEARCH_NAME_MIGRATION } from '../../../issuer/store/migrations.js';
import { tempDir } from '../../support/temp-dir.js';
import { VERSION_9_ROWS } from '../../support/version-9-rows.js';

const { dir, cleanup } = tempDir('search-name-migration-');
afterAll(cleanup);

it('fills tickets.search_name for the tickets already there', () => {
  const db = new Database(path.join(dir, 'issuer.db'));
  try {
    for (const migration of MIGRATIONS.slice(0, SEARCH_NAME_MIGRATION - 1)) db.exec(migration);
    db.pragma(`user_version = ${SEARCH_NAME_MIGRATION - 1}`);
    for (const statement of VERSION_9_ROWS) db.prepare(statement).run();

    expect(migrate(db)).toEqual({ from: SEARCH_NAME_MIGRATION - 1, to: SCHEMA_VERSION });
    expect(db.prepare('SELECT tid, search_name FROM tickets ORDER BY tid').all()).toEqual([
      { tid: 'T1', search_name: null },
      { tid: 'T2', search_name: 'zoe angstrom' },
    ]);
  } finally {
    db.close();
  }
});

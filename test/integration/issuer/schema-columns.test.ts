/**
 * issuer/store/columns.ts writes every table's columns once; the migrations are the schema's history in SQL.
 * This runs the SQLite chain (migrations.ts) on a fresh file and finds exactly the columns of the table there
 * (PRAGMA table_info), table for table, so a migration that adds a table or a column without its line in
 * columns.ts fails here. The PostgreSQL chain: test/integration/postgres/schema-columns.test.ts.
 */
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../../issuer/store/database.js';
import { columnsOn, TABLE_COLUMNS, type Table } from '../../../issuer/store/columns.js';
import { tempDir } from '../../support/temp-dir.js';

const { dir, cleanup } = tempDir('schema-columns-');
afterAll(cleanup);

it('the SQLite migrations make exactly the tables and columns of store/columns.ts', () => {
  const db = openDatabase(path.join(dir, 'issuer.db'));
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .pluck()
      .all() as string[];
    expect(tables).toEqual(Object.keys(TABLE_COLUMNS).sort());
    for (const table of Object.keys(TABLE_COLUMNS) as Table[]) {
      const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((column) => column.name);
      expect({ table, columns: columns.sort() }).toEqual({ table, columns: columnsOn('sqlite', table).sort() });
    }
  } finally {
    db.close();
  }
});

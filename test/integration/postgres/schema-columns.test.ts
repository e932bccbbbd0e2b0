/**
 * issuer/store/columns.ts writes every table's columns once; the migrations are the schema's history in SQL.
 * This runs the PostgreSQL chain (postgres-migrations.ts) on an empty database of a throwaway cluster
 * (test/support/postgres-cluster.ts) and finds exactly the columns of the table there (information_schema),
 * table for table, so a migration that adds a table or a column without its line in columns.ts fails here.
 * The SQLite chain: test/integration/issuer/schema-columns.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { columnsOn, TABLE_COLUMNS, type Table } from '../../../issuer/store/columns.js';
import { openPostgresDatabase } from '../../../issuer/store/postgres-database.js';
import { migratePostgres } from '../../../issuer/store/postgres-migrations.js';
import type { SqlDatabase } from '../../../issuer/store/sql.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

let cluster: PostgresCluster;
let db: SqlDatabase | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 90_000);

afterAll(async () => {
  await db?.close();
  await cluster?.stop();
}, 60_000);

/** The version record migratePostgres keeps beside the migrations (SQLite's PRAGMA user_version). */
const BOOKKEEPING = ['schema_version'];

it('the PostgreSQL migrations make exactly the tables and columns of store/columns.ts', async () => {
  db = await openPostgresDatabase(cluster.url, { poolSize: 1, applicationName: 'schema-columns-test' });
  await migratePostgres(db);
  const rows = await db.read.all<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
  );
  const found = new Map<string, string[]>();
  for (const row of rows) {
    if (BOOKKEEPING.includes(row.table_name)) continue;
    found.set(row.table_name, [...(found.get(row.table_name) ?? []), row.column_name]);
  }
  expect([...found.keys()].sort()).toEqual(Object.keys(TABLE_COLUMNS).sort());
  for (const table of Object.keys(TABLE_COLUMNS) as Table[]) {
    expect({ table, columns: found.get(table)?.sort() }).toEqual({ table, columns: columnsOn('postgres', table).sort() });
  }
});

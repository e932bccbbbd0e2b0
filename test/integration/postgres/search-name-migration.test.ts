/**
 * Migration 10 (docs/protocol.md "Ticket search") on PostgreSQL: the same rows and outcome as the SQLite test
 * (test/integration/issuer/search-name-migration.test.ts), migrated by migratePostgres.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SEARCH_NAME_MIGRATION } from '../../../issuer/store/migrations.js';
import { openPostgresDatabase } from '../../../issuer/store/postgres-database.js';
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../../issuer/store/postgres-migrations.js';
import type { SqlDatabase } from '../../../issuer/store/sql.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';
import { VERSION_9_ROWS } from '../../support/version-9-rows.js';

let cluster: PostgresCluster;
let db: SqlDatabase | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 90_000);

afterAll(async () => {
  await db?.close();
  await cluster?.stop();
}, 60_000);

it('fills tickets.search_name for the tickets already there', async () => {
  db = await openPostgresDatabase(cluster.url, { poolSize: 1, applicationName: 'search-name-migration-test' });
  const before = SEARCH_NAME_MIGRATION - 1;
  await db.write(async (tx) => {
    await tx.run('CREATE TABLE schema_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version INTEGER NOT NULL)');
    for (const migration of POSTGRES_MIGRATIONS.slice(0, before)) await tx.run(migration);
    await tx.run('INSERT INTO schema_version (singleton, version) VALUES (1, ?)', [before]);
    for (const statement of VERSION_9_ROWS) await tx.run(statement);
  });

  expect(await migratePostgres(db)).toEqual({ from: before, to: POSTGRES_SCHEMA_VERSION });
  expect(await db.read.all('SELECT tid, search_name FROM tickets ORDER BY tid')).toEqual([
    { tid: 'T1', search_name: null },
    { tid: 'T2', search_name: 'zoe angstrom' },
  ]);
});

/**
 * Migration 9 (docs/issuer.md "Staff roles and badges") on PostgreSQL: a database at version 8 with setup codes
 * and keys of both annul flags, migrated by migratePostgres. The same rows and outcome as the SQLite test
 * (test/integration/issuer/trust-migration.test.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../../issuer/store/postgres-database.js';
import { migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../../issuer/store/postgres-migrations.js';
import type { SqlDatabase } from '../../../issuer/store/sql.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';
import { VERSION_8_ROWS } from '../../support/version-8-rows.js';

let cluster: PostgresCluster;
let db: SqlDatabase | undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 90_000);

afterAll(async () => {
  await db?.close();
  await cluster?.stop();
}, 60_000);

it('maps can_annul to the role (1: supervisor, 0: steward), drops the flag, adds the badges and the new columns', async () => {
  db = await openPostgresDatabase(cluster.url, { poolSize: 1, applicationName: 'trust-migration-test' });
  await db.write(async (tx) => {
    await tx.run('CREATE TABLE schema_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version INTEGER NOT NULL)');
    for (const migration of POSTGRES_MIGRATIONS.slice(0, 8)) await tx.run(migration);
    await tx.run('INSERT INTO schema_version (singleton, version) VALUES (1, 8)');
    for (const statement of VERSION_8_ROWS.split(';').filter((s) => s.trim() !== '')) await tx.run(statement);
  });

  expect(await migratePostgres(db)).toEqual({ from: 8, to: POSTGRES_SCHEMA_VERSION });

  expect(await db.read.all('SELECT token_id, role FROM enrollment_tokens ORDER BY token_id')).toEqual([
    { token_id: 'tok_annul', role: 'supervisor' },
    { token_id: 'tok_plain', role: 'steward' },
  ]);
  expect(await db.read.all('SELECT api_key_id, role FROM api_keys ORDER BY api_key_id')).toEqual([
    { api_key_id: 'key_annul', role: 'supervisor' },
    { api_key_id: 'key_plain', role: 'steward' },
  ]);
  const flags = await db.read.all(
    "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'can_annul'",
  );
  expect(flags).toEqual([]);
  expect(await db.read.all('SELECT clock_offset_ms FROM scanner_heartbeats')).toEqual([{ clock_offset_ms: null }]);
  expect(await db.read.all('SELECT staff_id FROM admission_events')).toEqual([{ staff_id: null }]);
  expect(await db.read.get('SELECT count(*) AS n FROM staff_badges')).toEqual({ n: 0 });
});

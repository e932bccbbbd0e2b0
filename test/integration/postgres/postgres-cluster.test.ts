/**
 * The throwaway PostgreSQL cluster the PostgreSQL store's tests start
 * (test/support/postgres-cluster.ts): it comes up on
 * loopback with durable commits, a UNIQUE constraint refuses a second row (the
 * mechanism exactly-once across processes relies on: one `valid` per ticket,
 * decided by the database, not by a lock in one process), and stop() leaves
 * neither a listening port nor files behind.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

describe('startPostgresCluster', () => {
  let cluster: PostgresCluster;
  let pool: pg.Pool;
  let poolEnded = false;

  // initdb and the first start take a few seconds on a busy 2-core machine: more than the 30 s default hook timeout allows for comfortably.
  beforeAll(async () => {
    cluster = await startPostgresCluster({ database: 'cluster_test' });
    pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  }, 90_000);

  afterAll(async () => {
    if (pool && !poolEnded) await pool.end();
    await cluster?.stop();
  }, 60_000);

  it('answers on loopback under the URL it returns, with no password, as the named user and database', async () => {
    expect(cluster.url).toBe(`postgres://tickets@127.0.0.1:${cluster.port}/cluster_test`);
    const { rows } = await pool.query<{ user: string; db: string; addr: string }>(
      'SELECT current_user AS user, current_database() AS db, inet_server_addr()::text AS addr',
    );
    expect(rows[0]).toEqual({ user: 'tickets', db: 'cluster_test', addr: '127.0.0.1/32' });
  });

  it('commits durably by default: synchronous_commit and fsync are on', async () => {
    const settings = await pool.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'listen_addresses') ORDER BY name",
    );
    expect(settings.rows).toEqual([
      { name: 'fsync', setting: 'on' },
      { name: 'listen_addresses', setting: '127.0.0.1' },
      { name: 'synchronous_commit', setting: 'on' },
    ]);
  });

  it('refuses a second row under a UNIQUE constraint, also when two connections race', async () => {
    await pool.query('CREATE TABLE checkins (tid text NOT NULL UNIQUE, scanner text NOT NULL)');
    await pool.query("INSERT INTO checkins (tid, scanner) VALUES ('t1', 'door-a')");
    await expect(pool.query("INSERT INTO checkins (tid, scanner) VALUES ('t1', 'door-b')")).rejects.toMatchObject({ code: '23505' });

    // Four connections insert the same ticket at once: exactly one wins, the others get unique_violation.
    const racers = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((door) => pool.query('INSERT INTO checkins (tid, scanner) VALUES ($1, $2)', ['t2', `door-${door}`])),
    );
    expect(racers.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of racers.filter((r) => r.status === 'rejected')) expect(r.reason).toMatchObject({ code: '23505' });
    const { rows } = await pool.query<{ tid: string; n: number }>('SELECT tid, count(*)::int AS n FROM checkins GROUP BY tid ORDER BY tid');
    expect(rows).toEqual([
      { tid: 't1', n: 1 },
      { tid: 't2', n: 1 },
    ]);
  });

  it('stop() closes the port and removes the temp dir', async () => {
    expect(existsSync(join(cluster.dir, 'data', 'PG_VERSION'))).toBe(true);
    await pool.end();
    poolEnded = true;
    await cluster.stop();
    expect(existsSync(cluster.dir)).toBe(false);
    const client = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 5000 });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await cluster.stop(); // twice is fine (afterAll calls it again)
  });
});

describe('startPostgresCluster without PostgreSQL', () => {
  it('says how to install it', async () => {
    await expect(startPostgresCluster({ binDir: '/nonexistent/postgresql/bin' })).rejects.toThrow(
      /install the postgresql package: bash scripts\/install-system-deps\.sh/,
    );
  });
});

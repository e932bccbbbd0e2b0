/**
 * The PostgreSQL side of the database port (issuer/store/postgres-database.ts,
 * postgres-migrations.ts, postgres-rate-limit.ts) against one throwaway
 * cluster for the whole file (test/support/postgres-cluster.ts). Scenarios
 * that need a fresh schema get a database of their own in that cluster.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError } from '../../../issuer/error-catalogue.js';
import { newWebhookSecret } from '../../../issuer/services/webhook-signature.js';
import { addEndpointWrite, auditHeadWrite } from '../../../issuer/services/webhooks.js';
import { changeAdmission } from '../../../issuer/store/checkins.js';
import { openPostgresDatabase } from '../../../issuer/store/postgres-database.js';
import { migratePostgres, postgresSchemaVersion, POSTGRES_MIGRATIONS } from '../../../issuer/store/postgres-migrations.js';
import { MIGRATIONS } from '../../../issuer/store/migrations.js';

/** The schema version: one per migration, the same number on both stores. */
const V = MIGRATIONS.length;
import { ensureRateLimitTable, postgresFailureCounter, postgresRateLimitStore } from '../../../issuer/store/postgres-rate-limit.js';
import type { Sql, SqlDatabase } from '../../../issuer/store/sql.js';
import { freePort } from '../../support/free-port.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: pg.Pool;
/** Every database opened here, closed before the cluster stops (an immediate shutdown would kill their idle clients). */
const opened: SqlDatabase[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  admin = new pg.Pool({ connectionString: cluster.url, max: 2 });
}, 90_000);

afterAll(async () => {
  for (const db of opened) await db.close().catch(() => undefined);
  await admin?.end();
  await cluster?.stop();
}, 60_000);

/** The cluster's URL for another database in it. */
const urlOf = (database: string) => `postgres://${cluster.user}@${cluster.host}:${cluster.port}/${database}`;

async function freshDatabase(name: string): Promise<string> {
  await admin.query(`CREATE DATABASE ${name}`);
  return urlOf(name);
}

async function open(url: string, poolSize = 4): Promise<SqlDatabase> {
  const db = await openPostgresDatabase(url, { poolSize, applicationName: 'postgres-database-test' });
  opened.push(db);
  return db;
}

async function tableCount(sql: Sql, table: string): Promise<number> {
  const row = await sql.get<{ n: number }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = ?", [table]);
  return row!.n;
}

describe('migratePostgres', () => {
  it('creates the schema on an empty database, and a second run does nothing', async () => {
    const db = await open(await freshDatabase('migrate_once'));
    expect(await postgresSchemaVersion(db.read)).toBe(0);
    expect(await migratePostgres(db)).toEqual({ from: 0, to: V });
    expect(POSTGRES_MIGRATIONS).toHaveLength(V);
    expect(await postgresSchemaVersion(db.read)).toBe(V);
    for (const table of [
      'issuer',
      'signing_keys',
      'events',
      'tickets',
      'checkins',
      'idempotency',
      'scan_log',
      'admin_token',
      'admission_events',
      'occupancy',
      'offline_policies',
      'scanner_heartbeats',
    ]) {
      expect(await tableCount(db.read, table)).toBe(1);
    }
    const index = await db.read.get<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'tickets_revoked_by_event'");
    expect(index?.def).toMatch(/WHERE \(revoked_at IS NOT NULL\)/);

    expect(await migratePostgres(db)).toEqual({ from: V, to: V });
    expect(await db.read.all('SELECT * FROM schema_version')).toEqual([{ singleton: 1, version: V }]);
  });

  it('applies each migration once when two processes (two pools) migrate at once', async () => {
    const url = await freshDatabase('migrate_race');
    const [a, b] = [await open(url), await open(url)];
    const results = await Promise.all([migratePostgres(a), migratePostgres(b)]);
    expect(results.map((r) => r.from).sort()).toEqual([0, V]);
    expect(results.every((r) => r.to === V)).toBe(true);
    expect(await tableCount(a.read, 'tickets')).toBe(1);
    expect(await a.read.all('SELECT * FROM schema_version')).toEqual([{ singleton: 1, version: V }]);
  });

  it('refuses a database newer than this program with SCHEMA_TOO_NEW, leaving it untouched', async () => {
    const db = await open(await freshDatabase('migrate_too_new'));
    await migratePostgres(db);
    await db.read.run(`UPDATE schema_version SET version = ${V + 1}`);
    const refusal = await migratePostgres(db).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AdminError);
    expect(refusal).toMatchObject({
      code: 'SCHEMA_TOO_NEW',
      message: `the database's schema is version ${V + 1}, this ticket-issuer knows up to version ${V}: upgrade ticket-issuer`,
    });
    expect(await db.read.all('SELECT * FROM schema_version')).toEqual([{ singleton: 1, version: V + 1 }]);
  });
});

describe('the Sql port on PostgreSQL', () => {
  let db: SqlDatabase;

  beforeAll(async () => {
    db = await open(await freshDatabase('port'));
    await migratePostgres(db);
    await db.read.run(
      "INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES ('E1', 'Gala', '2026-05-01', 'Hall', 'x', 'y')",
    );
    await db.read.run("INSERT INTO signing_keys (kid, public_key, valid_from, active) VALUES ('k1', 'pub', '2026-01-01T00:00:00Z', 1)");
  });

  const ticket = (tid: string, exp: number) =>
    db.read.run(
      "INSERT INTO tickets (tid, eid, kid, issued_at, exp, qr) VALUES (@tid, 'E1', 'k1', '2026-04-01T00:00:00.000Z', @exp, @tid)",
      { tid, exp },
    );

  it('get/all/run with positional and named parameters', async () => {
    expect(await ticket('T-port-1', 1_900_000_000)).toEqual({ changes: 1 });
    await db.read.run("INSERT INTO tickets (tid, eid, kid, issued_at, exp, qr) VALUES (?, 'E1', 'k1', ?, ?, 'qr')", [
      'T-port-2',
      '2026-04-02T00:00:00.000Z',
      1_900_000_001,
    ]);
    expect(await db.read.get('SELECT tid, exp FROM tickets WHERE tid = ?', ['T-port-1'])).toEqual({ tid: 'T-port-1', exp: 1_900_000_000 });
    expect(await db.read.get('SELECT tid FROM tickets WHERE tid = @tid', { tid: 'nope' })).toBeUndefined();
    expect(await db.read.all("SELECT tid FROM tickets WHERE tid LIKE 'T-port-%' ORDER BY tid")).toEqual([
      { tid: 'T-port-1' },
      { tid: 'T-port-2' },
    ]);
    expect(
      await db.read.run("UPDATE tickets SET revoked_at = @at WHERE tid LIKE 'T-port-%' AND revoked_at IS NULL", { at: 'now' }),
    ).toEqual({ changes: 2 });
    expect(await db.read.run('DELETE FROM tickets WHERE tid = ?', ['nope'])).toEqual({ changes: 0 });
  });

  it('declares TEXT columns COLLATE "C", so they compare byte by byte as on SQLite whatever the database locale', async () => {
    const collation = await db.read.get<{ c: string }>(
      "SELECT collation_name AS c FROM information_schema.columns WHERE table_name = 'checkins' AND column_name = 'checked_in_at'",
    );
    expect(collation?.c).toBe('C');
  });

  it('returns BIGINT, counts and sums as numbers, per pool (pg.types keeps its defaults)', async () => {
    const row = await db.read.get<Record<string, unknown>>(
      'SELECT 9007199254740991::bigint AS big, count(*) AS n, sum(exp) AS total, 3::int AS small, 1.5::numeric AS fraction FROM tickets',
    );
    expect(row).toMatchObject({ big: 9007199254740991, small: 3, fraction: 1.5 });
    expect(typeof row!.n).toBe('number');
    expect(typeof row!.total).toBe('number');
    const ids = await db.read.all<{ id: number }>(
      "INSERT INTO scan_log (at, outcome) VALUES ('2026-05-01T20:00:00Z', 'valid'), ('2026-05-01T20:00:01Z', 'valid') RETURNING id",
    );
    expect(ids.map((r) => typeof r.id)).toEqual(['number', 'number']);
    await expect(db.read.get('SELECT 9007199254740993::bigint AS too_big')).rejects.toThrow(/does not fit a JavaScript number/);

    // A plain pool in the same process still gets pg's default: BIGINT as a string.
    const plain = await admin.query<{ big: unknown }>('SELECT 1::bigint AS big');
    expect(plain.rows[0]!.big).toBe('1');
  });

  it('write() commits a job and resolves with its value', async () => {
    const value = await db.write(async (tx) => {
      await tx.run("INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES (?, 'W', 'd', 'v', 'e', 'c')", ['E-commit']);
      return (await tx.get<{ n: number }>('SELECT count(*) AS n FROM events WHERE eid = ?', ['E-commit']))!.n;
    });
    expect(value).toBe(1);
    expect(await db.read.get('SELECT eid FROM events WHERE eid = ?', ['E-commit'])).toEqual({ eid: 'E-commit' });
  });

  it('write() rolls back everything of a job that throws, and rethrows its error unchanged', async () => {
    const failure = new Error('the job changed its mind');
    let attempts = 0;
    await expect(
      db.write(async (tx) => {
        attempts += 1;
        await tx.run("INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES ('E-rollback', 'R', 'd', 'v', 'e', 'c')");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(attempts).toBe(1);
    expect(await db.read.get("SELECT eid FROM events WHERE eid = 'E-rollback'")).toBeUndefined();
  });

  it('write() does not report success for a job that swallowed a failed statement: nothing of it is stored', async () => {
    const outcome = db.write(async (tx) => {
      await tx.run("INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES ('E-swallow', 'S', 'd', 'v', 'e', 'c')");
      // A ticket of an event that does not exist: foreign_key_violation, which the job ignores.
      await tx
        .run("INSERT INTO tickets (tid, eid, kid, issued_at, exp, qr) VALUES ('T-x', 'no-such-event', 'k1', 'i', 1, 'q')")
        .catch(() => 0);
      return 'done';
    });
    await expect(outcome).rejects.toMatchObject({ code: '23503' });
    expect(await db.read.get("SELECT eid FROM events WHERE eid = 'E-swallow'")).toBeUndefined();
  });

  it('write() runs a job again when a concurrent writer won the unique key: it then sees the winner', async () => {
    await ticket('T-race', 1_900_000_000);
    const attempts = { a: 0, b: 0 };
    // Both first attempts read "no check-in yet" before either inserts, so they really collide.
    let arrived = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const checkIn = (who: 'a' | 'b') =>
      db.write(async (tx) => {
        attempts[who] += 1;
        const existing = await tx.get<{ scanner_id: string }>('SELECT scanner_id FROM checkins WHERE tid = ?', ['T-race']);
        if (existing) return `already (${existing.scanner_id})`;
        if (attempts[who] === 1) {
          arrived += 1;
          if (arrived === 2) bothRead();
          await barrier;
        }
        await tx.run(
          `INSERT INTO checkins (tid, checked_in_at, scanner_id, api_key_id, idempotency_key, recorded_at)
           VALUES (@tid, @at, @who, 'key', @who, @at)`,
          { tid: 'T-race', at: '2026-05-01T20:00:00.000Z', who },
        );
        return 'inserted';
      });
    const results = await Promise.all([checkIn('a'), checkIn('b')]);
    const winner = results[0] === 'inserted' ? 'a' : 'b';
    expect([...results].sort()).toEqual([`already (${winner})`, 'inserted']);
    expect(attempts.a + attempts.b).toBe(3);
    expect(await db.read.all("SELECT scanner_id FROM checkins WHERE tid = 'T-race'")).toEqual([{ scanner_id: winner }]);
  });

  it('write() runs a job again when its conditional update found the row changed (WriteConflict): both changes land, in turn', async () => {
    await ticket('T-state', 1_900_000_000);
    await db.write((tx) =>
      tx.run(
        `INSERT INTO checkins (tid, checked_in_at, scanner_id, api_key_id, idempotency_key, recorded_at, state_at, first_checked_in_at)
         VALUES ('T-state', @at, 's', 'key', 'k0', @at, @at, @at)`,
        { at: '2026-05-01T20:00:00.000Z' },
      ),
    );
    const attempts = { exit: 0, annul: 0 };
    let arrived = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    // Both read version 0, then both change the row from it: one wins, the other sees 0 rows changed and reruns.
    const change = (who: 'exit' | 'annul', state: 'outside' | 'annulled') =>
      db.write(async (tx) => {
        attempts[who] += 1;
        const row = (await tx.get<{ version: number; state: string }>("SELECT version, state FROM checkins WHERE tid = 'T-state'"))!;
        if (attempts[who] === 1) {
          arrived += 1;
          if (arrived === 2) bothRead();
          await barrier;
        }
        await changeAdmission(tx, 'T-state', row.version, { state, at: '2026-05-01T21:00:00.000Z' });
        return row.state;
      });
    const [before] = await Promise.all([change('exit', 'outside'), change('annul', 'annulled')]);
    expect(attempts.exit + attempts.annul).toBe(3);
    expect(await db.read.get("SELECT version FROM checkins WHERE tid = 'T-state'")).toEqual({ version: 2 });
    expect(before).toBeDefined();
  });

  it('write() gives up after 8 attempts when the conflict never goes away, with the last error', async () => {
    let attempts = 0;
    await expect(
      db.write(async (tx) => {
        attempts += 1;
        await tx.run("INSERT INTO events (eid, name, date, venue, ends_at, created_at) VALUES ('E1', 'dup', 'd', 'v', 'e', 'c')");
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(attempts).toBe(8);
  });

  it('drained() waits for the writes in flight', async () => {
    expect(await Promise.race([db.drained().then(() => 'drained'), sleep(50).then(() => 'waiting')])).toBe('drained');
    let finished = false;
    const slow = db.write(async (tx) => {
      await tx.get('SELECT pg_sleep(0.2)');
      finished = true;
    });
    await sleep(20);
    await db.drained();
    expect(finished).toBe(true);
    await slow;
  });
});

describe('openPostgresDatabase and close()', () => {
  it('close() waits for a running write, then ends the pool', async () => {
    const db = await openPostgresDatabase(urlOf(cluster.database), { poolSize: 2 });
    let finished = false;
    const slow = db.write(async (tx) => {
      await tx.get('SELECT pg_sleep(0.2)');
      finished = true;
      return 'written';
    });
    await sleep(20);
    await db.close();
    expect(finished).toBe(true);
    expect(await slow).toBe('written');
    await expect(db.read.get('SELECT 1')).rejects.toThrow();
  });

  it('never puts the password of the URL into its error', async () => {
    const closedPort = await freePort();
    const refused = await openPostgresDatabase(`postgres://tickets:s3cret-pw@127.0.0.1:${closedPort}/tickets`).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain(`cannot reach the PostgreSQL database at 127.0.0.1:${closedPort}/tickets`);
    expect((refused as Error).message).not.toContain('s3cret-pw');

    const noDatabase = await openPostgresDatabase(`postgres://tickets:s3cret-pw@127.0.0.1:${cluster.port}/no_such_db`).catch(
      (e: Error) => e,
    );
    expect((noDatabase as Error).message).toMatch(/no_such_db/);
    expect((noDatabase as Error).message).not.toContain('s3cret-pw');
  });
});

describe('the rate-limit store on PostgreSQL', () => {
  let first: SqlDatabase;
  let second: SqlDatabase;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    const url = await freshDatabase('rate_limits');
    // Two "processes": two pools, each with its own Fastify instance and store.
    [first, second] = [await open(url), await open(url)];
    await Promise.all([ensureRateLimitTable(first), ensureRateLimitTable(second)]);
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  /** An app with one plugin-limited route (5 a minute) and a probe that reports what createRateLimit saw. */
  async function appOn(db: SqlDatabase): Promise<FastifyInstance> {
    const app = Fastify({ logger: false });
    apps.push(app);
    await app.register(rateLimit, { global: false, store: postgresRateLimitStore(db) });
    app.get('/limited', { config: { rateLimit: { max: 5, timeWindow: 60_000, keyGenerator: () => 'key:limited' } } }, async () => 'ok');
    const shortWindow = app.createRateLimit({ max: 2, timeWindow: 1000, keyGenerator: () => 'key:short' });
    const minuteWindow = app.createRateLimit({ max: 5, timeWindow: 60_000, keyGenerator: () => 'key:minute' });
    app.get('/probe/:which', async (request) => {
      const limiter = (request.params as { which: string }).which === 'short' ? shortWindow : minuteWindow;
      return limiter(request);
    });
    await app.ready();
    return app;
  }

  it('allows exactly 5 of 10 requests alternating between two instances', async () => {
    const [a, b] = [await appOn(first), await appOn(second)];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await (i % 2 === 0 ? a : b).inject('/limited')).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429, 429, 429, 429]);
  });

  it('counts concurrent requests from both instances exactly, with a sane ttl', async () => {
    const [a, b] = [await appOn(first), await appOn(second)];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).inject('/probe/minute').then((r) => r.json<Record<string, unknown>>())),
    );
    const currents = answers.map((r) => 5 - (r.remaining as number));
    expect(answers.filter((r) => r.isExceeded === false)).toHaveLength(5);
    expect(currents.filter((c) => c === 5)).toHaveLength(6); // remaining bottoms out at 0 for the 5th and every one over
    for (const answer of answers) {
      expect(answer.ttl).toBeGreaterThan(0);
      expect(answer.ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('starts a new window, counting from 1, once the old one has ended', async () => {
    const app = await appOn(first);
    const probe = async () => (await app.inject('/probe/short')).json<{ remaining: number; isExceeded: boolean; ttl: number }>();
    expect((await probe()).remaining).toBe(1);
    expect((await probe()).remaining).toBe(0);
    expect((await probe()).isExceeded).toBe(true);
    await sleep(1100);
    const fresh = await probe();
    expect(fresh).toMatchObject({ remaining: 1, isExceeded: false });
    expect(fresh.ttl).toBeGreaterThan(900);
    expect(fresh.ttl).toBeLessThanOrEqual(1000);
  });

  it('deletes windows that have ended, now and then', async () => {
    await first.read.run("INSERT INTO rate_limit_windows (key, window_start, count) VALUES ('key:ancient', 0, 3)");
    // A fresh store class cleans up on its first request (then at most once a minute).
    const app = await appOn(second);
    await app.inject('/probe/minute');
    let left: unknown;
    for (let i = 0; i < 40; i++) {
      left = await first.read.get("SELECT key FROM rate_limit_windows WHERE key = 'key:ancient'");
      if (left === undefined) break;
      await sleep(50);
    }
    expect(left).toBeUndefined();
    expect(await first.read.get("SELECT key FROM rate_limit_windows WHERE key = 'key:minute'")).toEqual({ key: 'key:minute' });
  });

  it('counts failed authentications once for both instances: the limit holds in total, per key, until the window ends', async () => {
    const [a, b] = [postgresFailureCounter(first, 4, 1000), postgresFailureCounter(second, 4, 1000)];
    for (let i = 0; i < 4; i++) expect((await (i % 2 === 0 ? a : b).attempt('admin:10.0.0.1')).wait).toBe(0);
    for (const counter of [a, b]) {
      const left = (await counter.attempt('admin:10.0.0.1')).wait;
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(1000);
    }
    expect((await a.attempt('admin:10.0.0.2')).wait).toBe(0);
    await sleep(1100);
    expect((await b.attempt('admin:10.0.0.1')).wait).toBe(0);
  });

  it('check and count are one statement: of a parallel burst on both instances only the limit go on; a passed attempt is taken back', async () => {
    const [a, b] = [postgresFailureCounter(first, 5, 60_000), postgresFailureCounter(second, 5, 60_000)];
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).attempt('admin:10.0.0.3')));
    expect(burst.filter((attempt) => attempt.wait === 0)).toHaveLength(5);
    await burst.find((attempt) => attempt.wait === 0)!.passed();
    expect((await b.attempt('admin:10.0.0.3')).wait).toBe(0);
    expect((await a.attempt('admin:10.0.0.3')).wait).toBeGreaterThan(0);
  });

  it('refuses options it does not implement, and a SQLite database', () => {
    const Store = postgresRateLimitStore(first);
    expect(() => new Store({ continueExceeding: true })).toThrow(/fixed windows/);
    expect(() => postgresRateLimitStore({ ...first, dialect: 'sqlite' })).toThrow(/needs a PostgreSQL database/);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('the webhooks audit head on PostgreSQL', () => {
  it('two processes racing for the same period write one audit.head, not two (docs/issuer.md "Webhooks")', async () => {
    const url = await freshDatabase('audit_head');
    // Two "processes": two pools, each running the serve timer's job at the same moment, many times over.
    const [first, second] = [await open(url), await open(url)];
    await migratePostgres(first);
    await first.write(
      addEndpointWrite({
        url: 'https://example.com/hook',
        events: '*',
        eid: null,
        secret: newWebhookSecret(),
        now: new Date().toISOString(),
      }),
    );
    const now = new Date().toISOString();
    const wrote = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).write(auditHeadWrite({ now, everyMs: 60_000 }))),
    );
    expect(wrote.filter(Boolean)).toHaveLength(1);
    expect(await first.read.get("SELECT count(*) AS n FROM webhook_messages WHERE type = 'audit.head'")).toEqual({ n: 1 });
  });
});

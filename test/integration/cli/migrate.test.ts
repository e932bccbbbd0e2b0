/**
 * `ticket-issuer migrate` and the schema check at `serve` (docs/issuer.md
 * "Upgrading: migrate"), on real SQLite files in temp dirs, through the built CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../../../issuer/store/database.js';
import { MIGRATIONS } from '../../../issuer/store/migrations.js';
import { cliFailure, cliJson, initIssuer, LOOPBACK_SERVE, openDb, runCli, scratchDir, serveCli } from '../../support/cli-harness.js';

const schemaOf = (data: string): number => {
  const db = openDb(data);
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

const setSchema = (data: string, version: number): void => {
  const db = openDb(data);
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    db.close();
  }
};

/**
 * An issuer as the first release left it: a database made by migration 1 alone (user_version 1), holding
 * the issuer, its signing key, an event, a ticket and one check-in, as that release wrote them.
 */
async function issuerAtSchemaOne(): Promise<string> {
  const { data } = await initIssuer('http://127.0.0.1:8080');
  const current = openDb(data);
  const issuer = current.prepare('SELECT * FROM issuer').get() as Record<string, unknown>;
  const keys = current.prepare('SELECT * FROM signing_keys').all() as Record<string, unknown>[];
  current.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(data, `issuer.db${suffix}`), { force: true });
  const db = openDb(data);
  try {
    db.exec(MIGRATIONS[0]!);
    db.prepare('INSERT INTO issuer (singleton, base_url, name, created_at) VALUES (@singleton, @base_url, @name, @created_at)').run(issuer);
    for (const key of keys) {
      db.prepare(
        'INSERT INTO signing_keys (kid, public_key, valid_from, valid_until, active) VALUES (@kid, @public_key, @valid_from, @valid_until, @active)',
      ).run(key);
    }
    db.exec(`
      INSERT INTO events (eid, name, date, venue, ends_at, created_at)
        VALUES ('E-old', 'Old Night', '2030-01-01T19:00:00Z', 'Hall', '2030-01-02T07:00:00Z', '2029-12-01T00:00:00Z');
      INSERT INTO tickets (tid, eid, kid, holder_name, ticket_type, issued_at, exp, qr)
        VALUES ('T-old', 'E-old', '${String(keys[0]!.kid)}', 'Ada', 'VIP', '2029-12-01T00:00:00Z', 1893520800, 'tkt1.x.y');
      INSERT INTO checkins (tid, checked_in_at, scanner_id, gate_id, api_key_id, idempotency_key, recorded_at)
        VALUES ('T-old', '2030-01-01T19:05:00Z', 'scanner-1', 'North', 'key_1', 'k-1', '2030-01-01T19:05:01Z');
      PRAGMA user_version = 1;
    `);
  } finally {
    db.close();
  }
  return data;
}

describe('migrate', () => {
  test('on a data dir just made by init: nothing to do, from = to = the current version', async () => {
    const { data } = await initIssuer();
    expect(await cliJson(['migrate', '--data', data])).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    const human = await runCli(['migrate', '--data', data]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`The database's schema is at version ${SCHEMA_VERSION}: up to date, nothing to do.\n`);
    expect(human.stderr).toBe('');
  });

  test('on an older schema: applies the pending migrations and says from which version to which', async () => {
    const data = await issuerAtSchemaOne();
    expect(await cliJson(['migrate', '--data', data])).toEqual({ from: 1, to: SCHEMA_VERSION });
    expect(schemaOf(data)).toBe(SCHEMA_VERSION);
    const db = openDb(data);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'admin_token'").get()).toEqual({ name: 'admin_token' });
    // Migration 3 (door operations): the check-in made before is the ticket's admission, inside, in its history and counted.
    expect(db.prepare("SELECT state, state_at, first_checked_in_at, entries, version FROM checkins WHERE tid = 'T-old'").get()).toEqual({
      state: 'inside',
      state_at: '2030-01-01T19:05:00Z',
      first_checked_in_at: '2030-01-01T19:05:00Z',
      entries: 1,
      version: 0,
    });
    expect(db.prepare("SELECT action, at, gate_id, actor, ticket_type FROM admission_events WHERE tid = 'T-old'").all()).toEqual([
      { action: 'entry', at: '2030-01-01T19:05:00Z', gate_id: 'North', actor: 'scanner:scanner-1', ticket_type: 'VIP' },
    ]);
    expect(db.prepare("SELECT gate_id, inside, entries, exits FROM occupancy WHERE eid = 'E-old'").all()).toEqual([
      { gate_id: 'North', inside: 1, entries: 1, exits: 0 },
    ]);
    expect(db.prepare("SELECT entry_policy, capacity FROM events WHERE eid = 'E-old'").get()).toEqual({
      entry_policy: 'single',
      capacity: null,
    });
    db.close();

    const again = await issuerAtSchemaOne();
    const human = await runCli(['migrate', '--data', again]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`Migrated the database's schema from version 1 to ${SCHEMA_VERSION}.\n`);
  });

  test('on a newer schema: SCHEMA_TOO_NEW, the database untouched', async () => {
    const { data } = await initIssuer();
    setSchema(data, SCHEMA_VERSION + 1);
    const failure = await cliFailure(['migrate', '--data', data]);
    expect(failure.code).toBe('SCHEMA_TOO_NEW');
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toBe(
      `the database's schema is version ${SCHEMA_VERSION + 1}, this ticket-issuer knows up to version ${SCHEMA_VERSION}: upgrade ticket-issuer`,
    );
    expect(schemaOf(data)).toBe(SCHEMA_VERSION + 1);
  });

  test('without a data dir: NOT_INITIALISED, and nothing is created', async () => {
    const data = path.join(scratchDir(), 'nothing-here');
    const failure = await cliFailure(['migrate', '--data', data]);
    expect(failure.code).toBe('NOT_INITIALISED');
    expect(fs.existsSync(data)).toBe(false);
  });
});

describe('serve checks the schema before it listens', () => {
  test('a newer schema: SCHEMA_TOO_NEW, exit 1, the database untouched', async () => {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    setSchema(data, SCHEMA_VERSION + 1);
    const failure = await cliFailure(['serve', '--data', data, ...LOOPBACK_SERVE]);
    expect(failure.code).toBe('SCHEMA_TOO_NEW');
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toContain('upgrade ticket-issuer');
    expect(schemaOf(data)).toBe(SCHEMA_VERSION + 1);
  });

  test('an older schema: SCHEMA_OUTDATED ("run ticket-issuer migrate"), not migrated; after migrate it serves', async () => {
    const data = await issuerAtSchemaOne();
    const failure = await cliFailure(['serve', '--data', data, ...LOOPBACK_SERVE]);
    expect(failure.code).toBe('SCHEMA_OUTDATED');
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toBe(
      `the database's schema is version 1, this ticket-issuer needs version ${SCHEMA_VERSION}: run "ticket-issuer migrate" first (with the same --data)`,
    );
    expect(schemaOf(data)).toBe(1);

    await cliJson(['migrate', '--data', data]);
    const { url } = await serveCli(['--data', data, ...LOOPBACK_SERVE]);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', schema_version: SCHEMA_VERSION });
  });

  test('the admin commands still migrate an older schema on open, as before', async () => {
    const data = await issuerAtSchemaOne();
    await cliJson(['scanner', 'list', '--data', data]);
    expect(schemaOf(data)).toBe(SCHEMA_VERSION);
  });
});

/**
 * `ticket-issuer migrate` and the schema check at `serve` (docs/issuer.md
 * "Upgrading: migrate"), on real SQLite files in temp dirs, through the built CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../../../issuer/store/database.js';
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

/** An issuer as the first release left it: schema 1, i.e. without migration 2's admin_token table and index. */
async function issuerAtSchemaOne(): Promise<string> {
  const { data } = await initIssuer('http://127.0.0.1:8080');
  const db = openDb(data);
  try {
    db.exec('DROP TABLE admin_token; DROP INDEX tickets_revoked_by_event; PRAGMA user_version = 1');
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

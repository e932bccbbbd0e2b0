/**
 * Migration 9 (docs/issuer.md "Staff roles and badges") on a real SQLite file: a database at version 8 with
 * setup codes and keys of both annul flags, a heartbeat and an admission, migrated. The flag becomes the role
 * (1: supervisor, 0: steward), the flag is gone, and the new table and columns are there, empty. The
 * PostgreSQL twin: test/integration/postgres/trust-migration.test.ts.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { migrate, SCHEMA_VERSION } from '../../../issuer/store/database.js';
import { MIGRATIONS } from '../../../issuer/store/migrations.js';
import { tempDir } from '../../support/temp-dir.js';
import { VERSION_8_ROWS } from '../../support/version-8-rows.js';

const { dir, cleanup } = tempDir('trust-migration-');
afterAll(cleanup);

it('maps can_annul to the role (1: supervisor, 0: steward), drops the flag, adds the badges and the new columns', () => {
  const db = new Database(path.join(dir, 'issuer.db'));
  try {
    db.pragma('foreign_keys = ON');
    for (const migration of MIGRATIONS.slice(0, 8)) db.exec(migration);
    db.pragma('user_version = 8');
    db.exec(VERSION_8_ROWS);

    expect(migrate(db)).toEqual({ from: 8, to: SCHEMA_VERSION });

    expect(db.prepare('SELECT token_id, role FROM enrollment_tokens ORDER BY token_id').all()).toEqual([
      { token_id: 'tok_annul', role: 'supervisor' },
      { token_id: 'tok_plain', role: 'steward' },
    ]);
    expect(db.prepare('SELECT api_key_id, role FROM api_keys ORDER BY api_key_id').all()).toEqual([
      { api_key_id: 'key_annul', role: 'supervisor' },
      { api_key_id: 'key_plain', role: 'steward' },
    ]);
    const columns = (table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    expect(columns('enrollment_tokens')).not.toContain('can_annul');
    expect(columns('api_keys')).not.toContain('can_annul');
    expect(db.prepare('SELECT clock_offset_ms FROM scanner_heartbeats').all()).toEqual([{ clock_offset_ms: null }]);
    expect(db.prepare('SELECT staff_id FROM admission_events').all()).toEqual([{ staff_id: null }]);
    expect(db.prepare('SELECT count(*) AS n FROM staff_badges').get()).toEqual({ n: 0 });

    // Only the three roles are stored.
    expect(() => db.prepare("UPDATE api_keys SET role = 'annulling_scanner' WHERE api_key_id = 'key_plain'").run()).toThrow(/CHECK/);
    expect(() =>
      db
        .prepare(
          `INSERT INTO staff_badges (sid, eid, kid, name, role, nbf, exp, qr, issued_at)
           VALUES ('s1', 'E1', '0a1b2c3d', 'Kim', 'owner', 1, 2, 'q', '2030-01-01T00:00:00Z')`,
        )
        .run(),
    ).toThrow(/CHECK/);
  } finally {
    db.close();
  }
});

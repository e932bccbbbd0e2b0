/** `backup --to DIR`: a consistent, private copy of the data dir, usable as a data dir itself. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cliFailure, cliJson, createEvent, initIssuer, scratchDir } from '../../support/cli-harness.js';

describe('backup', () => {
  it('copies the database as a snapshot, with keys and certificate, privately, while another process writes', async () => {
    const issuer = await initIssuer('https://127.0.0.1:8443');
    const event = await createEvent(issuer.data);
    await cliJson(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]); // makes the self-signed certificate
    await cliJson(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, '--count', '250']);

    // A writer holding the database open, as `serve` would.
    const writer = new Database(path.join(issuer.data, 'issuer.db'));
    writer.pragma('journal_mode = WAL');
    writer.prepare("UPDATE tickets SET revoked_at = '2026-01-01T00:00:00Z' WHERE rowid = 1").run();

    const target = path.join(scratchDir(), 'backup');
    const result = await cliJson<{ backup: string; database: string; files: string[] }>(['backup', '--data', issuer.data, '--to', target]);
    writer.close();
    expect(result.backup).toBe(target);
    expect(result.files.map((file) => path.relative(target, file)).sort()).toEqual([
      `keys/${issuer.kid}.key`,
      'tls/cert.pem',
      'tls/key.pem',
    ]);

    const copy = new Database(result.database, { readonly: true });
    expect(copy.prepare('SELECT count(*) AS n FROM tickets').get()).toEqual({ n: 250 });
    expect(copy.prepare('SELECT count(*) AS n FROM tickets WHERE revoked_at IS NOT NULL').get()).toEqual({ n: 1 });
    copy.close();
    for (const file of [result.database, path.join(target, 'keys', `${issuer.kid}.key`), path.join(target, 'tls', 'key.pem')]) {
      expect(fs.statSync(file).mode & 0o077, file).toBe(0);
    }
    expect(fs.statSync(target).mode & 0o777).toBe(0o700);

    // The backup is a working data dir: it signs new tickets with the same key.
    const issued = await cliJson<{ tickets: { tid: string; qr: string }[] }>(['ticket', 'issue', '--data', target, '--event', event.eid]);
    const payload = JSON.parse(Buffer.from(issued.tickets[0]!.qr.split('.')[1]!, 'base64url').toString('utf8')) as { kid: string };
    expect(payload.kid).toBe(issuer.kid);
  });

  it('refuses to write into an existing directory', async () => {
    const issuer = await initIssuer();
    const failure = await cliFailure(['backup', '--data', issuer.data, '--to', scratchDir()]);
    expect(failure.code).toBe('BACKUP_TARGET_EXISTS');
  });
});

/**
 * `ticket-issuer backup --to DIR` (docs/issuer.md "Backups"): a consistent
 * copy of a data dir, also while `serve` writes to it. The database goes
 * through SQLite's online backup API (a snapshot, never a torn file); keys
 * and the TLS certificate are copied with their private modes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataDirLayout } from '../data-dir.js';
import { AdminError } from '../error-catalogue.js';
import { sqliteConnection, type IssuerContext } from './issuer-context.js';

export interface BackupResult {
  backup: string;
  database: string;
  files: string[];
}

/** Backs the open issuer up into `to`, a directory that must not exist yet. */
export async function backupIssuer(context: IssuerContext, to: string): Promise<BackupResult> {
  const { dataDir } = context;
  const db = sqliteConnection(context, 'backup');
  // A backup is a self-contained data dir: its database in the default place, whatever the source's record or
  // TICKET_ISSUER_DATABASE_URL say (docs/issuer.md "Where the database is").
  const target = dataDirLayout(path.resolve(to));
  if (fs.existsSync(target.root))
    throw new AdminError('BACKUP_TARGET_EXISTS', `${target.root} already exists; back up into a new directory`);
  fs.mkdirSync(target.root, { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(target.database, 'wx', 0o600));
  await db.backup(target.database);
  const files = [...copyPrivateDir(dataDir.keysDir, target.keysDir), ...copyPrivateDir(dataDir.tlsDir, target.tlsDir)];
  return { backup: target.root, database: target.database, files };
}

function copyPrivateDir(from: string, to: string): string[] {
  if (!fs.existsSync(from)) return [];
  fs.mkdirSync(to, { mode: 0o700 });
  return fs.readdirSync(from).map((name) => {
    const target = path.join(to, name);
    fs.copyFileSync(path.join(from, name), target, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(target, fs.statSync(path.join(from, name)).mode & 0o777);
    return target;
  });
}

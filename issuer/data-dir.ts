/**
 * The issuer's data directory: database, private signing keys and the TLS
 * certificate. Private material is created 0600 inside 0700 folders and is
 * never world-readable (DEVELOPERS.md "Secrets").
 */
import fs from 'node:fs';
import path from 'node:path';

export const DEFAULT_DATA_DIR = './issuer-data';

export interface DataDir {
  root: string;
  database: string;
  keysDir: string;
  tlsDir: string;
}

export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

export function resolveDataDir(dir: string | undefined): DataDir {
  const root = path.resolve(dir ?? process.env.TICKET_ISSUER_DATA ?? DEFAULT_DATA_DIR);
  return {
    root,
    database: path.join(root, 'issuer.db'),
    keysDir: path.join(root, 'keys'),
    tlsDir: path.join(root, 'tls'),
  };
}

export function isInitialised(dataDir: DataDir): boolean {
  return fs.existsSync(dataDir.database);
}

export function requireInitialised(dataDir: DataDir): void {
  if (!isInitialised(dataDir)) {
    throw new DataDirError(
      `no issuer data in ${dataDir.root}: run "ticket-issuer init --base-url URL --name NAME" first, or pass --data DIR (or set TICKET_ISSUER_DATA)`,
    );
  }
}

export function createDataDir(dataDir: DataDir): void {
  if (isInitialised(dataDir)) {
    throw new DataDirError(`${dataDir.root} already holds an issuer; refusing to overwrite it`);
  }
  for (const dir of [dataDir.root, dataDir.keysDir, dataDir.tlsDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
  // The database holds key hashes and audit data: private too. Creating it empty with 0600 keeps SQLite's mode.
  fs.closeSync(fs.openSync(dataDir.database, 'a', 0o600));
}

/**
 * Makes the data directory private again at every `serve` start: folders
 * 0700, files 0600 (the database and its -wal/-shm, keys, the TLS key and
 * certificate, tls/serving.json). A directory made by an older version, or
 * copied in with a loose umask, is tightened; each change is returned for
 * the log. No-op on Windows, where modes do not apply.
 */
export function tightenDataDir(dataDir: DataDir): string[] {
  if (process.platform === 'win32') return [];
  const changed: string[] = [];
  const visit = (target: string): void => {
    const stat = fs.lstatSync(target);
    if (stat.isSymbolicLink()) return; // never follow a link out of the data dir
    const wanted = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== wanted && (stat.mode & 0o077) !== 0) {
      fs.chmodSync(target, wanted);
      changed.push(`${target}: ${(stat.mode & 0o777).toString(8).padStart(4, '0')} → ${wanted.toString(8).padStart(4, '0')}`);
    }
    if (stat.isDirectory()) for (const entry of fs.readdirSync(target)) visit(path.join(target, entry));
  };
  visit(dataDir.root);
  return changed;
}

/** Write a file only its owner can read, atomically (write to a temp name, then rename). */
export function writePrivateFile(file: string, contents: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, contents, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temp, file);
}

/**
 * The issuer's data directory: database, private signing keys and the TLS
 * certificate. Private material is created 0600 inside 0700 folders and is
 * never world-readable (DEVELOPERS.md "Secrets").
 */
import fs from 'node:fs';
import path from 'node:path';

import { AdminError } from './error-catalogue.js';

export const DEFAULT_DATA_DIR = './issuer-data';

/** The file in a data dir that says where its database is (docs/issuer.md "Where the database is"). */
export const DATABASE_RECORD = 'database.json';
/** The file that makes a data dir a serving node's (docs/issuer.md "Serving nodes"), written by `node-config`. */
export const NODE_RECORD = 'node.json';
/** The environment variable that overrides the record (docs/issuer.md "Where the database is"). */
export const DATABASE_URL_ENV = 'TICKET_ISSUER_DATABASE_URL';

export interface DataDir {
  root: string;
  /** The SQLite file: `<root>/issuer.db` unless database.json or TICKET_ISSUER_DATABASE_URL says otherwise. */
  database: string;
  /**
   * The PostgreSQL database instead of the SQLite file, when database.json or TICKET_ISSUER_DATABASE_URL names
   * one: a `postgres://USER@HOST:PORT/DB` URL that never carries a password (docs/issuer.md "Where the database is").
   */
  postgres?: string;
  keysDir: string;
  tlsDir: string;
  /** Where `database` came from: the default place in the dir, the dir's database.json, or the environment. */
  databaseFrom?: DatabaseSource;
}

export type DatabaseSource = 'data-dir' | 'record' | 'environment';

/**
 * `<data>/database.json`: `{"sqlite": "/absolute/path/issuer.db"}` or `{"postgres": "postgres://USER@HOST:PORT/DB"}`,
 * a URL WITHOUT a password (passwords come from PGPASSWORD or ~/.pgpass, never from the data dir). A data dir
 * without the record keeps meaning `<data>/issuer.db`.
 */
export type DatabaseRecord = { sqlite: string } | { postgres: string };

/** Where a database is: a SQLite file or a PostgreSQL URL without a password. */
export type DatabaseLocation = { sqlite: string; postgres?: undefined } | { postgres: string; sqlite?: undefined };

export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * The data dir every command works on, and where its database is: TICKET_ISSUER_DATABASE_URL when set, else
 * the dir's database.json, else `<data>/issuer.db` (docs/issuer.md "Where the database is"). Every command
 * resolves the database here, so the override and the record mean the same to all of them.
 */
export function resolveDataDir(dir: string | undefined, env: NodeJS.ProcessEnv = process.env): DataDir {
  const root = path.resolve(dir ?? env.TICKET_ISSUER_DATA ?? DEFAULT_DATA_DIR);
  const layout = dataDirLayout(root);
  const fromEnvironment = env[DATABASE_URL_ENV];
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return withLocation(layout, parseDatabaseUrl(fromEnvironment, DATABASE_URL_ENV), 'environment');
  }
  const recorded = readDatabaseRecord(root);
  return recorded === null ? layout : withLocation(layout, recorded, 'record');
}

/** The data dir with its database at `location` (a PostgreSQL URL keeps `database` at the default file, unused). */
export function withLocation(layout: DataDir, location: DatabaseLocation, from: DatabaseSource): DataDir {
  const { postgres: _unused, ...rest } = layout;
  return location.postgres !== undefined
    ? { ...rest, postgres: location.postgres, databaseFrom: from }
    : { ...rest, database: location.sqlite, databaseFrom: from };
}

/** The data dir's database location, as database.json records it. */
export function locationOf(dataDir: DataDir): DatabaseLocation {
  return dataDir.postgres !== undefined ? { postgres: dataDir.postgres } : { sqlite: dataDir.database };
}

/** A data dir at `root` with the database in its default place, ignoring any record or override (a backup's target). */
export function dataDirLayout(root: string): DataDir {
  return {
    root,
    database: path.join(root, 'issuer.db'),
    keysDir: path.join(root, 'keys'),
    tlsDir: path.join(root, 'tls'),
    databaseFrom: 'data-dir',
  };
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * A PostgreSQL URL as the data dir may record it: postgres://USER@HOST[:PORT]/DB[?options], no password.
 * A password in it is refused (it would end up in database.json and in process lists); PGPASSWORD or
 * ~/.pgpass supply it instead, read by the driver itself.
 */
export function parsePostgresUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: an unparseable URL may still hold a password.
    throw new AdminError('DATABASE_LOCATION_INVALID', `${where} is not a valid postgres://USER@HOST:PORT/DB URL`);
  }
  if (url.password !== '') {
    throw new AdminError(
      'DATABASE_LOCATION_INVALID',
      `${where} carries a password: leave it out of the URL and set PGPASSWORD or use ~/.pgpass (the URL is recorded in the data dir)`,
    );
  }
  if (url.hostname === '' || url.pathname.length <= 1) {
    throw new AdminError('DATABASE_LOCATION_INVALID', `${where}: "${value}" must name a host and a database: postgres://USER@HOST:PORT/DB`);
  }
  return value;
}

/**
 * A SQLite location as TICKET_ISSUER_DATABASE_URL gives it: `sqlite:///absolute/path/issuer.db` (percent-encoded
 * like any URL) or a plain absolute path. Relative paths are refused: what they meant would depend on the
 * directory each process happens to start in.
 */
export function parseDatabaseUrl(value: string, where: string): DatabaseLocation {
  if (POSTGRES_URL.test(value)) return { postgres: parsePostgresUrl(value, where) };
  let file = value;
  if (/^sqlite:/i.test(value)) {
    const match = /^sqlite:\/\/(\/.*)$/i.exec(value);
    if (!match) throw invalidLocation(where, value);
    try {
      file = decodeURIComponent(match[1]!);
    } catch {
      throw invalidLocation(where, value);
    }
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw invalidLocation(where, value);
  }
  if (!path.isAbsolute(file)) throw invalidLocation(where, value);
  return { sqlite: path.resolve(file) };
}

function invalidLocation(where: string, value: string): AdminError {
  // The value is echoed only when it cannot carry a password (a postgres URL is refused before this).
  return new AdminError(
    'DATABASE_LOCATION_INVALID',
    `${where}: "${value}" is not a database location; use postgres://USER@HOST:PORT/DB, sqlite:///absolute/path/issuer.db or an absolute path`,
  );
}

/** The database named by `<root>/database.json`, or null when the dir has no record. */
export function readDatabaseRecord(root: string): DatabaseLocation | null {
  const file = path.join(root, DATABASE_RECORD);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    record = null;
  }
  const { sqlite, postgres } = (record ?? {}) as { sqlite?: unknown; postgres?: unknown };
  if (typeof postgres === 'string' && sqlite === undefined) return { postgres: parsePostgresUrl(postgres, file) };
  if (typeof sqlite !== 'string' || !path.isAbsolute(sqlite) || postgres !== undefined) {
    throw new AdminError(
      'DATABASE_LOCATION_INVALID',
      `${file} is damaged: it must be {"sqlite": "/absolute/path/issuer.db"} or {"postgres": "postgres://USER@HOST:PORT/DB"}`,
    );
  }
  return { sqlite: path.resolve(sqlite) };
}

/** Records where the database is, 0600 like everything in the dir. */
export function writeDatabaseRecord(root: string, location: DatabaseLocation): void {
  const record: DatabaseRecord = location.postgres !== undefined ? { postgres: location.postgres } : { sqlite: location.sqlite };
  writePrivateFile(path.join(root, DATABASE_RECORD), `${JSON.stringify(record)}\n`);
}

/** Whether `root` is a serving node's dir (node-config wrote it): no signing keys, `serve` only. */
export function isServingNode(dataDir: Pick<DataDir, 'root'>): boolean {
  return fs.existsSync(path.join(dataDir.root, NODE_RECORD));
}

/**
 * The admin commands run on the issuer's data dir, where the signing keys are, never on a serving node's
 * (docs/issuer.md "Serving nodes"): only `serve` accepts a node dir.
 */
export function requireIssuerDataDir(dataDir: Pick<DataDir, 'root'>): void {
  if (isServingNode(dataDir)) {
    throw new AdminError(
      'SERVING_NODE_DIR',
      `${dataDir.root} is a serving node's directory (made by "ticket-issuer node-config"): it holds no signing keys and only "serve" runs on it; run admin commands on the issuer's data dir`,
    );
  }
}

/**
 * Whether `init` has made this data dir: its SQLite file exists, or, with PostgreSQL (where the tables live
 * elsewhere), its keys/ folder (an issuer's dir) or its node.json (a serving node's). Whether the database
 * itself holds an issuer is checked when it is opened.
 */
export function isInitialised(dataDir: DataDir): boolean {
  if (dataDir.postgres !== undefined) return fs.existsSync(dataDir.keysDir) || isServingNode(dataDir);
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
  if (dataDir.postgres === undefined) fs.closeSync(fs.openSync(dataDir.database, 'a', 0o600));
  // Made elsewhere (init --database, TICKET_ISSUER_DATABASE_URL): recorded, so later commands find it.
  if (dataDir.databaseFrom !== 'data-dir') writeDatabaseRecord(dataDir.root, locationOf(dataDir));
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

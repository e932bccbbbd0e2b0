/**
 * Opening an initialised data dir for one admin operation (docs/protocol.md
 * "The admin CLI"), and the lookups every operation starts with.
 */
import { resolveDataDir, isInitialised, requireIssuerDataDir, type DataDir } from '../data-dir.js';
import type { Db } from '../store/database.js';
import { openIssuerDatabase } from '../store/open.js';
import { SqliteDatabase } from '../store/sqlite-database.js';
import type { Sql, SqlDatabase } from '../store/sql.js';
import { findIssuerInfo } from '../store/issuer-info.js';
import { findEvent, type EventRow } from '../store/events.js';
import { findTicket, type TicketRow } from '../store/tickets.js';
import type { IssuerInfo } from '../store/issuer-info.js';
import { AdminError } from '../error-catalogue.js';

export interface IssuerContext {
  dataDir: DataDir;
  database: SqlDatabase;
  info: IssuerInfo;
}

export function notInitialised(dataDir: DataDir): AdminError {
  return new AdminError(
    'NOT_INITIALISED',
    `no issuer data in ${dataDir.root}: run "ticket-issuer init --base-url URL --name NAME" first, or pass --data DIR (or set TICKET_ISSUER_DATA)`,
  );
}

/**
 * Opens the database of an initialised issuer, migrating it on open as every
 * admin command does; `schema: 'require-current'` (serve) refuses an older or
 * newer schema instead. Safe while `serve` runs on the
 * same dir: SQLite WAL plus a busy timeout (issuer/store/database.ts).
 *
 * A serving node's dir (node-config) is refused unless `servingNode: 'allow'`
 * (serve only): the admin commands belong where the signing keys are
 * (docs/issuer.md "Serving nodes").
 */
export async function openIssuer(
  dataOption: string | undefined,
  options: { schema?: 'migrate' | 'require-current'; servingNode?: 'allow' | 'refuse'; poolSize?: number } = {},
): Promise<IssuerContext> {
  const dataDir = resolveDataDir(dataOption);
  if (options.servingNode !== 'allow') requireIssuerDataDir(dataDir);
  if (!isInitialised(dataDir)) throw notInitialised(dataDir);
  // serve (docs/issuer.md "Upgrading: migrate"): the schema is checked, never changed.
  const { database, schemaVersion } = await openIssuerDatabase(dataDir, {
    schema: options.schema ?? 'migrate',
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
  });
  try {
    // An empty database (an init that stopped early) is no issuer.
    if (schemaVersion === 0) throw notInitialised(dataDir);
    const info = await findIssuerInfo(database.read);
    if (!info) throw notInitialised(dataDir);
    return { dataDir, database, info };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Runs `work` on a connection of its own to the data dir's database (migrated on open), and always closes it. */
export async function withDatabase<T>(dataDir: DataDir, work: (database: SqlDatabase) => Promise<T>): Promise<T> {
  const { database } = await openIssuerDatabase(dataDir);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Runs `work` with an open issuer and always closes the database. */
export async function withIssuer<T>(dataOption: string | undefined, work: (context: IssuerContext) => T | Promise<T>): Promise<T> {
  const context = await openIssuer(dataOption);
  try {
    return await work(context);
  } finally {
    await context.database.close();
  }
}

/** The SQLite connection under an issuer, for `backup`, which copies the file itself with SQLite's online backup. */
export function sqliteConnection(context: IssuerContext, command: string): Db {
  if (context.database instanceof SqliteDatabase) return context.database.connection;
  throw new AdminError('DATABASE_NOT_SUPPORTED', `${command} works on an issuer whose database is a SQLite file`);
}

export async function requireEvent(db: Sql, eid: string): Promise<EventRow> {
  const event = await findEvent(db, eid);
  if (!event) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer (create one with "ticket-issuer event create")`);
  return event;
}

export async function requireTicket(db: Sql, tid: string): Promise<TicketRow> {
  const ticket = await findTicket(db, tid);
  if (!ticket) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  return ticket;
}

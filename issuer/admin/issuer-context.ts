/**
 * Opening an initialised data dir for one admin operation (docs/protocol.md
 * "The admin CLI"), and the lookups every operation starts with.
 */
import { resolveDataDir, isInitialised, requireIssuerDataDir, type DataDir } from '../data-dir.js';
import { openDatabase, requireCurrentSchema, schemaVersion, type Db } from '../store/database.js';
import { findEvent, type EventRow } from '../store/events.js';
import { findTicket, type TicketRow } from '../store/tickets.js';
import type { IssuerInfo } from '../store/issuer-info.js';
import { AdminError } from '../error-catalogue.js';

export interface IssuerContext {
  dataDir: DataDir;
  db: Db;
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
export function openIssuer(
  dataOption: string | undefined,
  options: { schema?: 'migrate' | 'require-current'; servingNode?: 'allow' | 'refuse' } = {},
): IssuerContext {
  const dataDir = resolveDataDir(dataOption);
  if (options.servingNode !== 'allow') requireIssuerDataDir(dataDir);
  if (!isInitialised(dataDir)) throw notInitialised(dataDir);
  if (options.schema === 'require-current') {
    // serve (docs/issuer.md "Upgrading: migrate"): the schema is checked, never changed.
    const db = openDatabase(dataDir.database, { migrate: false });
    try {
      // An empty database file (an init that stopped early) is no issuer to migrate.
      if (schemaVersion(db) === 0) throw notInitialised(dataDir);
      requireCurrentSchema(db);
    } catch (error) {
      db.close();
      throw error;
    }
    return withInfo(dataDir, db);
  }
  return withInfo(dataDir, openDatabase(dataDir.database));
}

function withInfo(dataDir: DataDir, db: Db): IssuerContext {
  const info = db.prepare('SELECT base_url, name, created_at FROM issuer WHERE singleton = 1').get() as IssuerInfo | undefined;
  if (!info) {
    db.close();
    throw notInitialised(dataDir);
  }
  return { dataDir, db, info };
}

/** Runs `work` on a connection of its own to the data dir's database, and always closes it. */
export function withDatabase<T>(dataDir: DataDir, work: (db: Db) => T): T {
  const db = openDatabase(dataDir.database);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Runs `work` with an open issuer and always closes the database. */
export async function withIssuer<T>(dataOption: string | undefined, work: (context: IssuerContext) => T | Promise<T>): Promise<T> {
  const context = openIssuer(dataOption);
  try {
    return await work(context);
  } finally {
    context.db.close();
  }
}

export function requireEvent(db: Db, eid: string): EventRow {
  const event = findEvent(db, eid);
  if (!event) throw new AdminError('EVENT_NOT_FOUND', `no event ${eid} at this issuer (create one with "ticket-issuer event create")`);
  return event;
}

export function requireTicket(db: Db, tid: string): TicketRow {
  const ticket = findTicket(db, tid);
  if (!ticket) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  return ticket;
}

import type { Sql } from './sql.js';

export interface IssuerInfo {
  base_url: string;
  name: string;
  created_at: string;
}

/** The issuer, or undefined in a database `init` has not finished. */
export function findIssuerInfo(db: Sql): Promise<IssuerInfo | undefined> {
  return db.get<IssuerInfo>('SELECT base_url, name, created_at FROM issuer WHERE singleton = 1');
}

export async function getIssuerInfo(db: Sql): Promise<IssuerInfo> {
  const row = await findIssuerInfo(db);
  if (!row) throw new Error('the issuer database has not been initialised (run "ticket-issuer init")');
  return row;
}

/** Whether `init` has written the issuer: the readiness probe's one read (a one-row table, by primary key). */
export async function hasIssuerInfo(db: Sql): Promise<boolean> {
  return (await db.get('SELECT 1 AS one FROM issuer WHERE singleton = 1')) !== undefined;
}

/** The statement setIssuerInfo runs, also for test fixtures that fill a SQLite file directly. */
export const INSERT_ISSUER_INFO = 'INSERT INTO issuer (singleton, base_url, name, created_at) VALUES (1, @base_url, @name, @created_at)';

export async function setIssuerInfo(db: Sql, info: IssuerInfo): Promise<void> {
  await db.run(INSERT_ISSUER_INFO, { ...info });
}

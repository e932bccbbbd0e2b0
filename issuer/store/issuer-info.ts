import { prepareCached, type Db } from './database.js';

export interface IssuerInfo {
  base_url: string;
  name: string;
  created_at: string;
}

export function getIssuerInfo(db: Db): IssuerInfo {
  const row = prepareCached(db, 'SELECT base_url, name, created_at FROM issuer WHERE singleton = 1').get() as IssuerInfo | undefined;
  if (!row) throw new Error('the issuer database has not been initialised (run "ticket-issuer init")');
  return row;
}

/** Whether `init` has written the issuer: the readiness probe's one read (a one-row table, by primary key). */
export function hasIssuerInfo(db: Db): boolean {
  return prepareCached(db, 'SELECT 1 FROM issuer WHERE singleton = 1').get() !== undefined;
}

export function setIssuerInfo(db: Db, info: IssuerInfo): void {
  prepareCached(db, 'INSERT INTO issuer (singleton, base_url, name, created_at) VALUES (1, @base_url, @name, @created_at)').run(info);
}

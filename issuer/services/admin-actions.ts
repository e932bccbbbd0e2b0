/**
 * Admin actions shared by the CLI (`ticket revoke`, `scanner revoke`) and the
 * admin dashboard, so both behave and fail the same way. Failures are
 * AdminErrors; the catalogue (issuer/error-catalogue.ts) gives each code its
 * exit code and its answer on the dashboard's API.
 */
import { isoUtc } from '../time.js';
import { AdminError } from '../error-catalogue.js';
import { namedJob } from '../store/named-jobs.js';
import type { Sql } from '../store/sql.js';
import { revokeApiKey } from '../store/scanners.js';
import { revokeTicket } from '../store/tickets.js';

/** Takes effect on the ticket's next scan, in every issuer process. Revoking twice keeps the first time and reason. */
export async function revokeTicketById(
  db: Sql,
  tid: string,
  reason: string | null,
  now: Date,
): Promise<{ tid: string; status: 'revoked' }> {
  if (!(await revokeTicket(db, tid, reason, isoUtc(now)))) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  return { tid, status: 'revoked' };
}

/** Shuts the scanner's key out on its next request. */
export async function revokeScannerKey(db: Sql, apiKeyId: string, now: Date): Promise<{ api_key_id: string; status: 'revoked' }> {
  if (!(await revokeApiKey(db, apiKeyId, isoUtc(now))))
    throw new AdminError('API_KEY_NOT_FOUND', `no scanner key ${apiKeyId} at this issuer (see "ticket-issuer scanner list")`);
  return { api_key_id: apiKeyId, status: 'revoked' };
}

/** The dashboard's revocations as write jobs, by name, so that they can run on the SQLite database thread (store/named-jobs.ts). */
export const revokeTicketWrite = namedJob('revoke-ticket', (db, args: { tid: string; reason: string | null; now: string }) =>
  revokeTicketById(db, args.tid, args.reason, new Date(args.now)),
);

export const revokeScannerKeyWrite = namedJob('revoke-scanner-key', (db, args: { apiKeyId: string; now: string }) =>
  revokeScannerKey(db, args.apiKeyId, new Date(args.now)),
);

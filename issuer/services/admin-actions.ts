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
import { findTicket, revokeTicket } from '../store/tickets.js';
import { announce } from './webhooks.js';

/** Takes effect on the ticket's next scan, in every issuer process. Revoking twice keeps the first time and reason. */
export async function revokeTicketById(
  db: Sql,
  tid: string,
  reason: string | null,
  now: Date,
): Promise<{ tid: string; status: 'revoked' }> {
  const at = isoUtc(now);
  if (!(await revokeTicket(db, tid, reason, at))) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${tid} at this issuer`);
  // docs/issuer.md "Webhooks": told once, when it happens (a second revocation keeps the first's time and says nothing).
  const ticket = await findTicket(db, tid);
  if (ticket?.revoked_at === at)
    await announce(db, 'ticket.revoked', ticket.eid, { eid: ticket.eid, tid, revoked_at: at, reason: ticket.revoke_reason }, at);
  return { tid, status: 'revoked' };
}

/** Shuts the scanner's key out on its next request. */
export async function revokeScannerKey(db: Sql, apiKeyId: string, now: Date): Promise<{ api_key_id: string; status: 'revoked' }> {
  const at = isoUtc(now);
  if (!(await revokeApiKey(db, apiKeyId, at)))
    throw new AdminError('API_KEY_NOT_FOUND', `no scanner key ${apiKeyId} at this issuer (see "ticket-issuer scanner list")`);
  const key = await db.get<{ eid: string; scanner_id: string; gate_id: string | null; revoked_at: string }>(
    'SELECT eid, scanner_id, gate_id, revoked_at FROM api_keys WHERE api_key_id = ?',
    [apiKeyId],
  );
  if (key?.revoked_at === at)
    await announce(
      db,
      'scanner.revoked',
      key.eid,
      { eid: key.eid, api_key_id: apiKeyId, scanner_id: key.scanner_id, gate_id: key.gate_id, revoked_at: at },
      at,
    );
  return { api_key_id: apiKeyId, status: 'revoked' };
}

/** The dashboard's revocations as write jobs, by name, so that they can run on the SQLite database thread (store/named-jobs.ts). */
export const revokeTicketWrite = namedJob('revoke-ticket', (db, args: { tid: string; reason: string | null; now: string }) =>
  revokeTicketById(db, args.tid, args.reason, new Date(args.now)),
);

export const revokeScannerKeyWrite = namedJob('revoke-scanner-key', (db, args: { apiKeyId: string; now: string }) =>
  revokeScannerKey(db, args.apiKeyId, new Date(args.now)),
);

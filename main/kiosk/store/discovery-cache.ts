/**
 * The discovery table: the last good discovery document per issuer, so a kiosk that restarts offline still
 * verifies signatures (docs/kiosk.md "Where the kiosk keeps its data"). sync/discovery.ts fetches and checks it.
 */
import type { DiscoveryDocument } from '../../../protocol/index.js';
import type { Statements } from './database.js';

export function readDiscovery(sql: Statements, iss: string): { document: DiscoveryDocument; fetchedAt: number } | null {
  const row = sql.statement('SELECT document, fetched_at FROM discovery WHERE iss = ?').get(iss) as
    { document: string; fetched_at: number } | undefined;
  return row ? { document: JSON.parse(row.document) as DiscoveryDocument, fetchedAt: row.fetched_at } : null;
}

export function saveDiscovery(sql: Statements, iss: string, document: DiscoveryDocument, fetchedAt: number): void {
  sql
    .statement(
      `INSERT INTO discovery (iss, document, fetched_at) VALUES (?, ?, ?)
         ON CONFLICT (iss) DO UPDATE SET document = excluded.document, fetched_at = excluded.fetched_at`,
    )
    .run(iss, JSON.stringify(document), fetchedAt);
}

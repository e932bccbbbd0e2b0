/**
 * The revocation list (docs/kiosk.md "Revocation list"; docs/protocol.md "Revocation list"): the revoked_tickets
 * table, the enrolled event's revoked tids as the issuer sent them, so a revoked ticket is refused offline; its
 * cursor and last good sync are the `revocations` setting (settings.ts). sync/revocation-sync.ts fetches the pages.
 */
import type { IsoDateTime } from '../../../protocol/index.js';
import type { Statements } from './database.js';
import { readSetting, saveSetting, type RevocationSync } from './settings.js';

/** The list is the one of this issuer's event (a list of another issuer or event does not count for it). */
export function isRevocationListOf(sync: RevocationSync | null, owner: { iss: string; eid: string }): sync is RevocationSync {
  return sync !== null && sync.iss === owner.iss && sync.eid === owner.eid;
}

/** One page of the issuer's revocation list as the kiosk keeps it (RevokedTickets.applyPage). */
export interface RevokedTicketsPage {
  iss: string;
  eid: string;
  tids: readonly string[];
  cursor: string;
  reset: boolean;
  syncedAt: IsoDateTime | null;
}

export class RevokedTickets {
  /** count(), once counted; null: count again. */
  private total: number | null = null;

  constructor(private readonly sql: Statements) {}

  /**
   * One page of the issuer's answer, in one transaction: the tids added, the cursor moved. A list of another
   * issuer or event, or an answer that starts over (`reset`), replaces the list. `syncedAt` is set on the
   * page that completes a sync; otherwise the last good sync's time is kept.
   */
  applyPage(page: RevokedTicketsPage): void {
    const { sql } = this;
    sql.transaction(() => {
      const before = readSetting(sql, 'revocations');
      const sameList = isRevocationListOf(before, page);
      if (!sameList || page.reset) sql.statement('DELETE FROM revoked_tickets').run();
      const insert = sql.statement('INSERT OR IGNORE INTO revoked_tickets (tid) VALUES (?)');
      for (const tid of page.tids) insert.run(tid);
      saveSetting(sql, 'revocations', {
        iss: page.iss,
        eid: page.eid,
        cursor: page.cursor,
        synced_at: page.syncedAt ?? (sameList && !page.reset ? before.synced_at : null),
      });
    });
    this.total = null;
  }

  /** A ticket the issuer answered `revoked` online: kept in the list at once (revocations are final). */
  add(tid: string): void {
    this.sql.statement('INSERT OR IGNORE INTO revoked_tickets (tid) VALUES (?)').run(tid);
    this.total = null; // counted again when next shown (a caller's transaction may still roll this back)
  }

  has(tid: string): boolean {
    return this.sql.statement('SELECT 1 FROM revoked_tickets WHERE tid = ?').get(tid) !== undefined;
  }

  /** Counted once and kept until the list changes (every state push shows it; the list can hold 100,000 tickets). */
  count(): number {
    this.total ??= (this.sql.statement('SELECT COUNT(*) AS n FROM revoked_tickets').get() as { n: number }).n;
    return this.total;
  }
}

/**
 * The revocation list (docs/kiosk.md "Revocation list"; docs/protocol.md "Revocation list"): the revoked_tickets
 * table, the enrolled event's revoked tids as the issuer sent them, so a revoked ticket is refused offline; its
 * cursor and last good sync are the `revocations` setting (settings.ts); and the event's revoked scanners and staff
 * badges (revokedStaff). sync/revocation-sync.ts fetches the pages.
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

/**
 * The event's revoked staff, from the two lists every page of the revocation list carries whole: `revoked_scanners`
 * (their LAN messages are ignored: docs/kiosk.md "Kiosks on one LAN") and `revoked_badges` (they unlock nothing:
 * docs/kiosk.md "Staff badges"). Both are kept the same way, one settings row per list naming its event, `{eid, <ids>}`,
 * and read only for that event: a kiosk enrolled for another event meanwhile does not take one event's list for another's.
 */
const REVOKED_STAFF_ROWS = {
  scanners: { key: 'lan_revoked_scanners', ids: 'scanner_ids' },
  badges: { key: 'revoked_staff_badges', ids: 'sids' },
} as const;
export type RevokedStaffList = keyof typeof REVOKED_STAFF_ROWS;

/**
 * Revoked badge ids kept by a kiosk of before the event ids: a bare list, from the revocation list then synced. Kept
 * as it is (an older app still reads it) and read, until the next sync writes the new row, as that list's event's.
 */
const BADGES_BEFORE_EVENT_IDS = 'revoked_badges';

/** Replaces the event's revoked scanner or badge ids. */
export function saveRevokedStaff(sql: Statements, list: RevokedStaffList, eid: string, ids: readonly string[]): void {
  const row = REVOKED_STAFF_ROWS[list];
  sql
    .statement('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
    .run(row.key, JSON.stringify({ eid, [row.ids]: [...ids] }));
}

/** The event's revoked scanner or badge ids as last synced; none for another event's list or before any sync. */
export function revokedStaff(sql: Statements, list: RevokedStaffList, eid: string): string[] {
  const row = REVOKED_STAFF_ROWS[list];
  const value = settingJson(sql, row.key);
  if (value !== undefined) return idsOf(value, eid, row.ids);
  if (list !== 'badges') return [];
  const before = settingJson(sql, BADGES_BEFORE_EVENT_IDS);
  // Its event is the revocation list's it came with; with no such record, it is not known: kept revoked (a revoked
  // badge must not unlock for want of knowing which list said so).
  const listEvent = readSetting(sql, 'revocations')?.eid ?? eid;
  return Array.isArray(before) ? idsOf({ eid: listEvent, sids: before }, eid, 'sids') : [];
}

function settingJson(sql: Statements, key: string): unknown {
  const row = sql.statement('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch {
    return null; // a damaged row counts as an empty list (the next sync writes it whole)
  }
}

function idsOf(value: unknown, eid: string, field: string): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const stored = value as Record<string, unknown>;
  const ids = stored[field];
  return stored['eid'] === eid && Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

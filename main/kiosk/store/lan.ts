/**
 * What this kiosk tells a LAN peer catching up (docs/kiosk.md "Kiosks on one LAN"; sync/lan-peers.ts): its
 * admissions, its confirmed annulments and its exits since a time, read from the scans table, and its handouts, read
 * from the handouts table. What peers tell this kiosk is
 * kept in memory by sync/lan-peers.ts; the event's revoked scanners (from the revocation list), whose LAN messages
 * are ignored, are kept with the revoked badges (revocations.ts revokedStaff).
 */
import type { IsoDateTime } from '../../../protocol/index.js';
import type { Statements } from './database.js';
import { revokedStaff, saveRevokedStaff } from './revocations.js';

/**
 * This kiosk's admissions since `since` (ISO), newest first, at most `limit`. An admission the issuer has since
 * confirmed annulled from this kiosk is not told.
 */
export function admissionsSince(
  sql: Statements,
  since: IsoDateTime,
  limit: number,
): Array<{ tid: string; admitted_at: IsoDateTime; admitted_offline: number; people: number | null }> {
  return sql
    .statement(
      `SELECT tid, admitted_at, admitted_offline, people FROM scans AS s WHERE admitted_at IS NOT NULL AND admitted_at >= ?
         AND NOT EXISTS (SELECT 1 FROM scans AS a WHERE a.tid = s.tid AND a.action = 'annul' AND a.result_status = 'annulled' AND a.seq > s.seq)
       ORDER BY admitted_at DESC LIMIT ?`,
    )
    .all(since, limit) as Array<{ tid: string; admitted_at: IsoDateTime; admitted_offline: number; people: number | null }>;
}

/**
 * This kiosk's annulments the issuer confirmed, answered since `since` (ISO), newest first, each with the issuer's
 * annulment receipt from its stored answer, or null (an issuer that gives none: docs/protocol.md "Annulment receipt").
 */
export function annulmentsSince(
  sql: Statements,
  since: IsoDateTime,
  limit: number,
): Array<{ tid: string; annulled_at: IsoDateTime; receipt: string | null }> {
  return sql
    .statement(
      `SELECT tid, answered_at AS annulled_at,
              CASE WHEN json_valid(result) THEN json_extract(result, '$.annulment_receipt') END AS receipt
         FROM scans WHERE action = 'annul' AND result_status = 'annulled' AND answered_at >= ?
       ORDER BY answered_at DESC LIMIT ?`,
    )
    .all(since, limit) as Array<{ tid: string; annulled_at: IsoDateTime; receipt: string | null }>;
}

/** One exit this kiosk let out: when (the verdict's time, as told live), decided offline (1) or not, and its people. */
export interface OwnExit {
  tid: string;
  exited_at: IsoDateTime;
  offline: number;
  people: number | null;
}

/**
 * This kiosk's exits since `since` (ISO), newest first, at most `limit`: the scans at its exit that let someone out
 * (verdict `exit`), with the people the verdict says went out (a party's), else the scan's. An exit before a
 * confirmed annulment of the ticket here is not told, as an admission is not.
 */
export function exitsSince(sql: Statements, since: IsoDateTime, limit: number): OwnExit[] {
  return sql
    .statement(
      `SELECT tid, json_extract(verdict, '$.decided_at') AS exited_at, json_extract(verdict, '$.offline') AS offline,
              COALESCE(json_extract(verdict, '$.party.people'), people) AS people
         FROM scans AS s WHERE action = 'exit' AND json_valid(verdict) AND json_extract(verdict, '$.kind') = 'exit'
           AND json_extract(verdict, '$.decided_at') >= ?
           AND NOT EXISTS (SELECT 1 FROM scans AS a WHERE a.tid = s.tid AND a.action = 'annul' AND a.result_status = 'annulled' AND a.seq > s.seq)
       ORDER BY exited_at DESC LIMIT ?`,
    )
    .all(since, limit) as OwnExit[];
}

/** One handout given here and not refused by the issuer (docs/kiosk.md "Handouts"). */
export interface OwnHandout {
  hid: string;
  tid: string;
  item: string;
  given_at: IsoDateTime;
  gate_id: string | null;
}

/** This kiosk's handouts given since `since` (ISO), newest first, at most `limit`; those the issuer refused left out. */
export function handoutsSince(sql: Statements, since: IsoDateTime, limit: number): OwnHandout[] {
  return sql
    .statement(
      `SELECT hid, tid, item, given_at, gate_id FROM handouts WHERE given_at >= ? AND (result_status IS NULL OR result_status = 'given')
       ORDER BY given_at DESC LIMIT ?`,
    )
    .all(since, limit) as OwnHandout[];
}

/** Replaces the event's revoked scanner ids (the revocation list carries them whole on every page): revocations.ts keeps them. */
export function saveRevokedScanners(sql: Statements, eid: string, scannerIds: readonly string[]): void {
  saveRevokedStaff(sql, 'scanners', eid, scannerIds);
}

/** The event's revoked scanner ids as last synced; none for another event's list or before any sync. */
export function revokedScanners(sql: Statements, eid: string): string[] {
  return revokedStaff(sql, 'scanners', eid);
}

/**
 * The scans table: every scan that goes to the issuer, committed BEFORE its verdict is shown, with its
 * idempotency key, so a crash or power cut never loses an admission nor changes the key a retry is sent with
 * (docs/protocol.md "Idempotency and offline scans"; docs/kiosk.md "Online and offline"). Here: a scan's row and its verdict, and what
 * this kiosk's own history says about a ticket (its admissions, the conflict report). Its place in the offline
 * queue is queue.ts; what it tells LAN peers is lan.ts.
 */
import { randomUUID } from 'node:crypto';
import type { DoorCheckInRequest, IsoDateTime, ScanAction, Verdict } from '../../../protocol/index.js';
import { appendAudit, verdictDetail, type VerdictAuditExtra } from './audit-log.js';
import type { Statements } from './database.js';

/**
 * Where a scan stands with the issuer:
 * - sending: a request is in flight from the scan itself (reset to pending on restart);
 * - pending: waits in the offline queue;
 * - held: not sent automatically (strict offline refusal, or the scanner lost its key);
 *   a rescan of the same ticket resends it with the same body and key;
 * - done: the issuer answered; failed: the issuer rejected the request for good.
 */
export type QueueState = 'sending' | 'pending' | 'held' | 'done' | 'failed';

export interface NewScan {
  code: string;
  iss: string;
  tid: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  scanned_at: IsoDateTime;
  signature_status: 'valid' | 'invalid';
  queue_state: 'sending' | 'pending' | 'held';
  /** Set when the verdict is already known at insert time (a refusal reported to the issuer). */
  verdict?: Verdict;
  /** What the scan is (sent as `action`); absent only for reports that are not door operations. */
  action?: ScanAction;
  /** Why a check-in is annulled (`annul` only). */
  reason?: string;
  ticket_type?: string | null;
  /** The request carries `admitted_offline: true`: the kiosk decided before any request went out. */
  sent_as_offline?: boolean;
  /** Who at the door made it (`annul`: the unlocked staff member), and the staff badge that unlocked them. */
  staff_id?: string | null;
  staff_badge?: string | null;
  /** docs/kiosk.md "ID checks": the steward confirmed the holder's ID before this entry (staff_id: who). */
  id_checked?: boolean;
  /** docs/kiosk.md "Party tickets": the people of a party ticket this scan counts (sent as `people`); absent: one. */
  people?: number | null;
}

export interface StoredScan {
  seq: number;
  idempotency_key: string;
  code: string;
  iss: string;
  tid: string;
  eid: string;
  gate_id: string | null;
  scanner_id: string;
  scanned_at: IsoDateTime;
  signature_status: 'valid' | 'invalid';
  queue_state: QueueState;
  verdict: Verdict | null;
  admitted_at: IsoDateTime | null;
  admitted_offline: boolean;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  result_status: string | null;
  result: unknown;
  answered_at: IsoDateTime | null;
  /** Null for scans stored before door operations: they are sent without `action`, as they first were. */
  action: ScanAction | null;
  reason: string | null;
  ticket_type: string | null;
  sent_as_offline: boolean;
  staff_id: string | null;
  staff_badge: string | null;
  id_checked: boolean;
  /** The people a party ticket's scan counts; null: one (sent without `people`). */
  people: number | null;
}

/**
 * A ticket admitted offline here that the issuer later answered `already_used` (two people may be inside) or
 * `revoked` (revoked while this kiosk could not hear of it): the conflict report (docs/kiosk.md "Double admissions").
 */
export interface DoubleAdmission {
  tid: string;
  eid: string;
  /** What the issuer answered when the offline admission reached it. */
  conflict: 'already_used' | 'revoked' | 'party_full';
  /** `party_full` (docs/kiosk.md "Double admissions"): how many of the people admitted here the issuer did not count. */
  refused_people?: number;
  admitted_here_at: IsoDateTime;
  /** The issuer's time of the first check-in (elsewhere or earlier). */
  first_checked_in_at: IsoDateTime | null;
  holder_name?: string;
  idempotency_key: string;
}

/** A row of scans as SQLite returns it. */
export interface ScanRow extends Omit<StoredScan, 'verdict' | 'admitted_offline' | 'result' | 'sent_as_offline' | 'id_checked'> {
  id_checked: number;
  verdict: string | null;
  admitted_offline: number;
  sent_as_offline: number;
  result: string | null;
}

/** Every column of scans but `seq`, in table order. */
export const SCAN_COLUMNS = [
  'idempotency_key',
  'code',
  'iss',
  'tid',
  'eid',
  'gate_id',
  'scanner_id',
  'scanned_at',
  'signature_status',
  'queue_state',
  'verdict',
  'admitted_at',
  'admitted_offline',
  'attempts',
  'next_attempt_at',
  'last_error',
  'result_status',
  'result',
  'answered_at',
  'action',
  'reason',
  'ticket_type',
  'sent_as_offline',
  'staff_id',
  'staff_badge',
  'id_checked',
  'people',
] as const;

/**
 * A ticket's scans after the issuer last confirmed an annulment of it from this kiosk (an annulled check-in is
 * undone: what came before it no longer counts). Takes the ticket's tid as its one parameter.
 */
const SINCE_CONFIRMED_ANNULMENT = `seq > COALESCE((SELECT MAX(seq) FROM scans WHERE tid = ? AND action = 'annul' AND result_status = 'annulled'), 0)`;

/** Commits a new scan with a fresh UUID v4 idempotency key (one per scan attempt), and its audit record. */
export function insertScan(sql: Statements, scan: NewScan): StoredScan {
  const key = randomUUID();
  return sql.transaction(() => {
    sql
      .statement(
        `INSERT INTO scans (idempotency_key, code, iss, tid, eid, gate_id, scanner_id, scanned_at, signature_status, queue_state, verdict,
                          action, reason, ticket_type, sent_as_offline, staff_id, staff_badge, id_checked, people)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        key,
        scan.code,
        scan.iss,
        scan.tid,
        scan.eid,
        scan.gate_id,
        scan.scanner_id,
        scan.scanned_at,
        scan.signature_status,
        scan.queue_state,
        scan.verdict ? JSON.stringify(scan.verdict) : null,
        scan.action ?? null,
        scan.reason ?? null,
        scan.ticket_type ?? null,
        scan.sent_as_offline ? 1 : 0,
        scan.staff_id ?? null,
        scan.staff_badge ?? null,
        scan.id_checked === true ? 1 : 0,
        scan.people ?? null,
      );
    appendAudit(sql, 'scan', key, scan.tid, {
      eid: scan.eid,
      gate_id: scan.gate_id,
      action: scan.action ?? null,
      scanned_at: scan.scanned_at,
      signature_status: scan.signature_status,
    });
    return scanByKey(sql, key)!;
  });
}

export function scanByKey(sql: Statements, idempotencyKey: string): StoredScan | null {
  const row = sql.statement('SELECT * FROM scans WHERE idempotency_key = ?').get(idempotencyKey) as ScanRow | undefined;
  return row ? fromRow(row) : null;
}

/** Records the verdict the door is about to show (commit first, then show), and its audit record. */
export function decideScan(
  sql: Statements,
  idempotencyKey: string,
  verdict: Verdict,
  queueState: QueueState,
  extra: VerdictAuditExtra = {},
): void {
  sql.transaction(() => {
    const admitted = verdict.kind === 'admit';
    sql
      .statement(
        `UPDATE scans SET verdict = ?, queue_state = ?,
           admitted_at = CASE WHEN ? THEN ? ELSE admitted_at END,
           admitted_offline = CASE WHEN ? THEN ? ELSE admitted_offline END
         WHERE idempotency_key = ?`,
      )
      .run(
        JSON.stringify(verdict),
        queueState,
        admitted ? 1 : 0,
        verdict.decided_at,
        admitted ? 1 : 0,
        verdict.offline ? 1 : 0,
        idempotencyKey,
      );
    appendAudit(sql, 'verdict', idempotencyKey, verdict.ticket?.tid ?? null, verdictDetail(verdict, extra));
  });
}

/**
 * When this kiosk first admitted the ticket (online or offline), if it did,
 * since the issuer last confirmed an annulment of it from this kiosk (an
 * annulled check-in is undone: a rescan admits).
 */
export function firstAdmissionAt(sql: Statements, tid: string): IsoDateTime | undefined {
  return standingAdmissionAt(sql, 'MIN', tid);
}

/**
 * This kiosk's admissions of the ticket since its last annulment here, oldest first: what its entries per day
 * are counted from offline (docs/kiosk.md "Check-in rules offline"; the issuer counts every kiosk's the same way).
 */
export function admissionTimes(sql: Statements, tid: string): IsoDateTime[] {
  const rows = sql
    .statement(
      `SELECT admitted_at AS at FROM scans WHERE tid = ? AND admitted_at IS NOT NULL
         AND ${SINCE_CONFIRMED_ANNULMENT}
       ORDER BY seq`,
    )
    .all(tid, tid) as { at: string }[];
  return rows.map((row) => row.at);
}

/** This kiosk's latest admission of the ticket still standing (see firstAdmissionAt), if any: what an annulment undoes. */
export function lastAdmissionAt(sql: Statements, tid: string): IsoDateTime | undefined {
  return standingAdmissionAt(sql, 'MAX', tid);
}

/** The first (MIN) or latest (MAX) of this kiosk's admissions of the ticket since its last confirmed annulment here. */
function standingAdmissionAt(sql: Statements, which: 'MIN' | 'MAX', tid: string): IsoDateTime | undefined {
  const row = sql
    .statement(
      `SELECT ${which}(admitted_at) AS at FROM scans WHERE tid = ? AND admitted_at IS NOT NULL
         AND ${SINCE_CONFIRMED_ANNULMENT}`,
    )
    .get(tid, tid) as { at: string | null };
  return row.at ?? undefined;
}

/** This kiosk's latest scan that admitted the ticket: the code and type an annulment of it records. */
export function admittingScan(sql: Statements, tid: string): StoredScan | null {
  const row = sql.statement(`SELECT * FROM scans WHERE tid = ? AND admitted_at IS NOT NULL ORDER BY seq DESC LIMIT 1`).get(tid) as
    ScanRow | undefined;
  return row ? fromRow(row) : null;
}

/** This kiosk's offline admissions since `since` (ISO), for the rolling-hour counts (protocol/offline-exposure.ts). */
export function offlineAdmissionsSince(
  sql: Statements,
  since: IsoDateTime,
): Array<{ ticket_type: string | null; admitted_at: IsoDateTime }> {
  return sql
    .statement(`SELECT ticket_type, admitted_at FROM scans WHERE admitted_offline = 1 AND admitted_at >= ? ORDER BY admitted_at`)
    .all(since) as Array<{ ticket_type: string | null; admitted_at: IsoDateTime }>;
}

/** Offline admissions not yet answered by the issuer, per ticket type ('' for none): the heartbeat's `offline_exposure`. */
export function unsyncedOfflineAdmissions(sql: Statements): Record<string, number> {
  const rows = sql
    .statement(
      `SELECT COALESCE(ticket_type, '') AS type, COUNT(*) AS n FROM scans
         WHERE admitted_offline = 1 AND admitted_at IS NOT NULL AND queue_state IN ('pending', 'sending', 'held') GROUP BY 1`,
    )
    .all() as Array<{ type: string; n: number }>;
  return Object.fromEntries(rows.map((row) => [row.type, row.n]));
}

/** The conflict report (docs/kiosk.md "Double admissions"), oldest first. */
export function doubleAdmissions(sql: Statements): DoubleAdmission[] {
  const rows = sql
    .statement(
      `SELECT * FROM scans WHERE admitted_offline = 1 AND result_status IN ('already_used', 'revoked') AND admitted_at IS NOT NULL ORDER BY seq`,
    )
    .all() as ScanRow[];
  // docs/kiosk.md "Party tickets": a part let in here that the issuer counted only partly (`party.refused`): admitted
  // offline, or queued again as admitted after a live answer came too late (queue-drain.ts resendAsAdmitted).
  const partParts = sql
    .statement(
      `SELECT * FROM scans WHERE people IS NOT NULL AND json_extract(result, '$.party.refused') > 0
         AND NOT (admitted_offline = 1 AND result_status IN ('already_used', 'revoked')) ORDER BY seq`,
    )
    .all() as ScanRow[];
  const all = [...rows, ...partParts].sort((a, b) => a.seq - b.seq);
  return all.map(fromRow).map((scan) => {
    const result = scan.result as {
      ticket?: { checked_in_at?: string | null; holder_name?: string };
      party?: { refused?: number };
    } | null;
    // A party's part the issuer counted not at all (nobody of the party remained: `already_used`) was refused whole.
    const refused = result?.party?.refused ?? (scan.people !== null && scan.result_status === 'already_used' ? scan.people : undefined);
    const entry: DoubleAdmission = {
      tid: scan.tid,
      eid: scan.eid,
      conflict: scan.result_status === 'revoked' ? 'revoked' : refused !== undefined ? 'party_full' : 'already_used',
      admitted_here_at: scan.admitted_at ?? scan.scanned_at,
      first_checked_in_at: result?.ticket?.checked_in_at ?? null,
      idempotency_key: scan.idempotency_key,
    };
    const holder = result?.ticket?.holder_name ?? (scan.verdict?.ticket?.holder_name as string | undefined);
    if (holder !== undefined) entry.holder_name = holder;
    if (refused !== undefined) entry.refused_people = refused;
    return entry;
  });
}

/** The exact request body for a stored scan: identical on every retry (docs/protocol.md "Idempotency and offline scans"). */
export function checkInRequestFor(scan: StoredScan): DoorCheckInRequest {
  const request: DoorCheckInRequest = {
    tid: scan.tid,
    eid: scan.eid,
    scanned_at: scan.scanned_at,
    scanner_id: scan.scanner_id,
    idempotency_key: scan.idempotency_key,
  };
  if (scan.gate_id !== null) request.gate_id = scan.gate_id;
  if (scan.signature_status === 'invalid') request.signature_status = 'invalid';
  // Door operations: our kiosks always say what a scan is (docs/protocol.md "Door operations").
  if (scan.action !== null) request.action = scan.action;
  if (scan.sent_as_offline) request.admitted_offline = true;
  if (scan.reason !== null) request.reason = scan.reason;
  if (scan.staff_id !== null) request.staff_id = scan.staff_id;
  if (scan.staff_badge !== null) request.staff_badge = scan.staff_badge;
  if (scan.id_checked) request.id_checked = true;
  if (scan.people !== null) request.people = scan.people;
  return request;
}

/** A row as the store hands it out: JSON columns parsed, 0/1 columns as booleans. */
export function fromRow(row: ScanRow): StoredScan {
  return {
    ...row,
    verdict: row.verdict ? (JSON.parse(row.verdict) as Verdict) : null,
    admitted_offline: row.admitted_offline === 1,
    sent_as_offline: row.sent_as_offline === 1,
    id_checked: row.id_checked === 1,
    result: row.result ? (JSON.parse(row.result) as unknown) : null,
  };
}

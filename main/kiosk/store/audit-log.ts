/**
 * The kiosk's audit log (docs/kiosk.md "The kiosk's audit log"): the audit_log table, append-only, every record
 * chained to the one before with SHA-256 (protocol/audit-chain.ts). A scan committed, its verdict, the issuer's
 * answer and a read that made no scan each append one record, in the same transaction as the write they record
 * (scans.ts, queue.ts, read-log.ts). scans cannot be chained themselves: their rows change as answers arrive.
 */
import { createHash } from 'node:crypto';
import {
  ChainVerifier,
  chainFields,
  chainHash,
  describeChainBreak,
  GENESIS_HASH,
  KIOSK_LOG_CHAIN_FIELDS,
  type ChainBreak,
  type LogHead,
} from '../../../protocol/audit-chain.js';
import type { LogCheckResult } from '../../../renderer/kiosk-bridge-types.js';
import type { Verdict } from '../../../protocol/index.js';
import type { Statements } from './database.js';

/** protocol/audit-chain.ts's SHA-256, by node:crypto: the same hex, about ten times faster than the pure one. */
const nodeSha256Hex = (message: Uint8Array): string => createHash('sha256').update(message).digest('hex');

/** What the kiosk's audit log records: a scan committed, its verdict, the issuer's answer, a read that made no scan. */
export type AuditKind = 'scan' | 'verdict' | 'answer' | 'read' | 'staff';

/**
 * What a refusal's record adds to the verdict (docs/kiosk.md "The kiosk's audit log"): the LAN peer whose
 * admission refused it (`seen_by_peer`), and the staff member at the kiosk when one is known.
 */
export interface VerdictAuditExtra {
  peer?: { scanner_id: string; gate: string | null; admitted_at: string };
  staff_id?: string;
}

/** The `verdict` record's detail: what the door showed, and why. */
export function verdictDetail(verdict: Verdict, extra: VerdictAuditExtra = {}): Record<string, unknown> {
  return {
    kind: verdict.kind,
    reason: verdict.kind === 'refuse' ? verdict.reason : null,
    offline: verdict.offline,
    decided_by: verdict.decided_by,
    decided_at: verdict.decided_at,
    ...extra,
  };
}

/**
 * A verdict shown without a scan row of its own to decide (a code refused by the offline checks before any
 * scan was committed, a lost authorisation): one `verdict` record, so every refusal is in the log.
 */
export function auditVerdict(sql: Statements, idempotencyKey: string | null, verdict: Verdict, extra: VerdictAuditExtra = {}): void {
  sql.transaction(() =>
    appendAudit(sql, 'verdict', idempotencyKey, verdict.ticket?.tid ?? null, verdictDetail(verdict, extra), verdict.decided_at),
  );
}

/**
 * A scan the door turned away before any verdict (docs/kiosk.md "The kiosk's audit log"): the scanner's key
 * refused or expired, a staff PIN still to set. A `verdict` record of kind `refuse`, decided by the kiosk.
 */
export function auditDoorRefusal(
  sql: Statements,
  tid: string | null,
  reason: string,
  at: string,
  extra: Record<string, unknown> = {},
): void {
  sql.transaction(() =>
    appendAudit(sql, 'verdict', null, tid, { kind: 'refuse', reason, offline: true, decided_by: 'kiosk', decided_at: at, ...extra }, at),
  );
}

interface AuditRow {
  seq: number;
  position: number;
  at: string;
  kind: AuditKind;
  idempotency_key: string | null;
  tid: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

/**
 * Appends one record at the end of the chain, in the caller's transaction (the kiosk's one process is the
 * only writer, so the last record is the head). `detail` is for people: never a scanned code or a secret.
 */
export function appendAudit(
  sql: Statements,
  kind: AuditKind,
  idempotencyKey: string | null,
  tid: string | null,
  detail: Record<string, unknown>,
  at?: string,
): void {
  const head = logHead(sql);
  const row = {
    position: head.position + 1,
    at: at ?? new Date().toISOString(),
    kind,
    idempotency_key: idempotencyKey,
    tid,
    detail: JSON.stringify(detail),
  };
  const hash = chainHash(head.hash, chainFields(row, KIOSK_LOG_CHAIN_FIELDS), nodeSha256Hex);
  sql
    .statement('INSERT INTO audit_log (position, at, kind, idempotency_key, tid, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(row.position, row.at, row.kind, row.idempotency_key, row.tid, row.detail, head.hash, hash);
}

/** The chain's head: the last record's position and hash (0 and 64 zeros while the log is empty). */
export function logHead(sql: Statements): LogHead {
  const last = sql.statement('SELECT position, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as LogHead | undefined;
  return last ?? { position: 0, hash: GENESIS_HASH };
}

/** A staff record as the heartbeat reads it (sync/heartbeat.ts; decide/staff-actions.ts picks what travels). */
export interface StaffAuditRecord {
  position: number;
  hash: string;
  at: string;
  detail: string;
}

/** The staff records after `position`, oldest first, at most `limit` (docs/kiosk.md "The kiosk's audit log"). */
export function staffRecordsAfter(sql: Statements, position: number, limit: number): StaffAuditRecord[] {
  return sql
    .statement("SELECT position, hash, at, detail FROM audit_log WHERE kind = 'staff' AND position > ? ORDER BY position LIMIT ?")
    .all(position, limit) as StaffAuditRecord[];
}

/** The hash of the record at `position`, or null when the log has none there. */
export function recordHashAt(sql: Statements, position: number): string | null {
  const row = sql.statement('SELECT hash FROM audit_log WHERE position = ? ORDER BY seq DESC LIMIT 1').get(position) as
    { hash: string } | undefined;
  return row?.hash ?? null;
}

/** Recomputes every record's hash and follows every link, in storage order: the first broken record, or OK. */
export function verifyLog(sql: Statements): LogCheckResult {
  const verifier = new ChainVerifier(nodeSha256Hex);
  let broken: ChainBreak | null = null;
  for (const row of sql.statement('SELECT * FROM audit_log ORDER BY seq').iterate() as Iterable<AuditRow>) {
    broken = verifier.next({
      id: row.seq,
      position: row.position,
      prev_hash: row.prev_hash,
      hash: row.hash,
      fields: chainFields(row, KIOSK_LOG_CHAIN_FIELDS),
    });
    if (broken) break;
  }
  if (broken?.kind === 'gap' && sql.statement('SELECT 1 FROM audit_log WHERE position = ?').get(broken.missing) !== undefined) {
    broken = { kind: 'reordered', id: broken.id, position: broken.position, expected: broken.missing };
  }
  const head = verifier.head();
  return broken
    ? {
        type: 'log_check',
        ok: false,
        records: verifier.rows,
        head,
        broken: { id: 'id' in broken ? broken.id : 0, kind: broken.kind, message: describeChainBreak(broken, 'record') },
      }
    : { type: 'log_check', ok: true, records: verifier.rows, head, broken: null };
}

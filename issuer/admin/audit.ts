/**
 * `audit verify` (docs/issuer.md "Audit: tamper-evident logs"): the issuer's scan_log chain, row by row, and
 * every chain head the kiosks reported, for consistency. A library: it reports, the CLI prints.
 */
import { describeChainBreak, type ChainBreak, type LogHead } from '../../protocol/audit-chain.js';
import { sealScanLog, verifyKioskHeads, verifyScanLog, type KioskHeadsReport } from '../store/audit-log.js';
import type { SqlDatabase } from '../store/sql.js';

export interface AuditReport {
  ok: boolean;
  /** The event the counts are for, or null for the whole issuer (the whole chain is verified either way). */
  eid: string | null;
  /** scan_log rows checked (with an event: that event's rows). */
  rows: number;
  /** The chain's head as verified. */
  head: LogHead;
  /** PostgreSQL: rows committed after this run's seal pass, not chained yet (not a break). Always 0 on SQLite. */
  unsealed: number;
  /** The first broken record, and what differs, or null. */
  broken: (ChainBreak & { message: string }) | null;
  kiosks: number;
  heads: number;
  /** Kiosks whose reported heads contradict each other: their logs were rewritten. */
  rewritten_kiosks: KioskHeadsReport['contradictions'];
}

/** Seals what is committed first (on PostgreSQL, store/audit-log.ts sealScanLog), then verifies the chain in position order. */
export async function auditVerify(database: SqlDatabase, eid: string | null): Promise<AuditReport> {
  await sealScanLog(database);
  const chain = await verifyScanLog(database.read, eid);
  const heads = await verifyKioskHeads(database.read, eid);
  return {
    ok: chain.ok && heads.ok,
    eid,
    rows: chain.rows,
    head: chain.head,
    unsealed: chain.unsealed,
    broken: chain.broken && { ...chain.broken, message: describeChainBreak(chain.broken) },
    kiosks: heads.kiosks,
    heads: heads.heads,
    rewritten_kiosks: heads.contradictions,
  };
}

/** The first problem as one line: the chain's first broken row, else the first kiosk whose history was rewritten. */
export function auditProblem(report: AuditReport): string | null {
  if (report.broken) return `scan_log chain broken: ${report.broken.message}`;
  const kiosk = report.rewritten_kiosks[0];
  if (kiosk) {
    return `kiosk ${kiosk.scanner_id} (key ${kiosk.api_key_id}) rewrote its log: the head it reported at ${kiosk.reported_at} contradicts an earlier one (${kiosk.reason})`;
  }
  return null;
}

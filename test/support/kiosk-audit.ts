/**
 * The records of a kiosk's audit log (docs/kiosk.md "The kiosk's audit log"), read from its kiosk.db as a
 * test checks them: oldest first, each detail parsed.
 */
import Database from 'better-sqlite3';

export interface AuditRecord {
  kind: string;
  tid: string | null;
  detail: Record<string, unknown>;
}

export function auditRecords(dbPath: string): AuditRecord[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.prepare('SELECT kind, tid, detail FROM audit_log ORDER BY seq').all() as Array<{
      kind: string;
      tid: string | null;
      detail: string;
    }>;
    return rows.map((row) => ({ kind: row.kind, tid: row.tid, detail: JSON.parse(row.detail) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

/** The `staff` records' details: unlocks, staff calls, refusals, PINs, badges, overrides. */
export function staffRecords(dbPath: string): Array<Record<string, unknown>> {
  return auditRecords(dbPath)
    .filter((record) => record.kind === 'staff')
    .map((record) => record.detail);
}

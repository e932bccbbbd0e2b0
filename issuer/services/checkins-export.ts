/**
 * The reconciliation export (`ticket-issuer checkins export`, and the admin
 * dashboard's CSV download): every admission and every refused or reported
 * scan of an event (docs/issuer.md "Reconciliation"). Three sources,
 * none counted twice:
 * - `checkins`: each ticket's current admission (one per ticket,
 *   authoritative), outcome `checked_in`, or `check_in_annulled` when it was
 *   undone (docs/protocol.md "Door operations");
 * - `admission_events`: the rest of the admission history, with who and why:
 *   exits (`exited`), annulments (`annulled`), and the entries the check-in
 *   row does not show (`entered`: re-entries, late entries; `entry_annulled`
 *   for an earlier admission that was undone before the ticket came in again);
 * - `scan_log`: every other logged scan (refusals, reports), without the
 *   outcomes the two sources above already hold.
 */
import { formatCsvRow } from '../csv.js';
import type { Sql } from '../store/sql.js';
import { admissionHistoryOfEvent, checkinsOfEvent, loggedScansOfEvent } from '../store/reconciliation.js';
import { attentionOverridesOf, type AttentionOverrideRow } from '../store/staff-actions.js';

export const EXPORT_COLUMNS = [
  'source',
  'at',
  'outcome',
  'tid',
  'eid',
  'holder_name',
  'ticket_type',
  'scanned_at',
  'scanner_id',
  'api_key_id',
  'gate_id',
  'idempotency_key',
  'details',
  // Door operations (added at the end: scripts reading the columns above by position keep working).
  'action',
  'state',
  'actor',
  'reason',
  // Who at the door (docs/issuer.md "Staff roles and badges"): a staff badge's sid or the kiosk's staff id.
  'staff_id',
  // An admission's attention prompt overridden at the kiosk (docs/kiosk.md "Attention notes"): the staff id that did it.
  'attention_overridden_by',
  // docs/issuer.md "Reconciliation": an entry's ID check, `checked` or `not_checked`; empty when none was asked. A
  // steward's Deny never reaches the issuer (the kiosk's audit log has it). Never the holder's date of birth.
  'id_check',
] as const;

export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | null>;

/** Scan-log outcomes whose rows come from checkins and admission_events instead (CheckInResponse statuses of accepted scans). */
const ADMISSION_OUTCOMES = ['valid', 'exited', 'annulled'] as const;

const HISTORY_OUTCOME = { entry: 'entered', exit: 'exited', annul: 'annulled' } as const;

export async function exportRows(db: Sql, eid: string): Promise<ExportRow[]> {
  const admits: ExportRow[] = (await checkinsOfEvent(db, eid)).map((c) => ({
    source: 'checkins',
    at: c.recorded_at,
    outcome: c.state === 'annulled' ? 'check_in_annulled' : 'checked_in',
    tid: c.tid,
    eid: c.eid,
    holder_name: c.holder_name,
    ticket_type: c.ticket_type,
    scanned_at: c.checked_in_at,
    scanner_id: c.scanner_id,
    api_key_id: c.api_key_id,
    gate_id: c.gate_id,
    idempotency_key: c.idempotency_key,
    details: null,
    action: 'entry',
    state: c.state,
    actor: `scanner:${c.scanner_id}`,
    // An annulled check-in: why it was undone; a manual entry (docs/protocol.md "Ticket search"): why it was made.
    reason: c.annul_reason ?? c.entry_reason,
    staff_id: c.staff_id,
    attention_overridden_by: null,
    id_check: c.id_check ?? null,
  }));
  const history: ExportRow[] = (await admissionHistoryOfEvent(db, eid)).map((a) => {
    const flags = { ...(a.late === 1 ? { late: true } : {}), ...(a.admitted_offline === 1 ? { admitted_offline: true } : {}) };
    const undone = a.annulled_reason !== null;
    return {
      source: 'admission_events',
      at: a.recorded_at,
      outcome: undone ? 'entry_annulled' : HISTORY_OUTCOME[a.action],
      tid: a.tid,
      eid: a.eid,
      holder_name: a.holder_name,
      ticket_type: a.ticket_type,
      scanned_at: a.at,
      scanner_id: a.scanner_id,
      api_key_id: a.api_key_id,
      gate_id: a.gate_id,
      idempotency_key: a.idempotency_key,
      details: Object.keys(flags).length === 0 ? null : JSON.stringify(flags),
      action: a.action,
      state: undone ? 'annulled' : null,
      actor: a.actor,
      reason: undone ? a.annulled_reason || null : a.reason,
      staff_id: a.staff_id,
      attention_overridden_by: null,
      id_check: a.id_check ?? null,
    };
  });
  const others: ExportRow[] = (await loggedScansOfEvent(db, eid, ADMISSION_OUTCOMES)).map((s) => ({
    source: 'scan_log',
    at: s.at,
    outcome: s.outcome,
    tid: s.tid,
    eid: s.eid,
    holder_name: s.holder_name,
    ticket_type: s.ticket_type,
    scanned_at: s.scanned_at,
    scanner_id: s.scanner_id,
    api_key_id: s.api_key_id,
    gate_id: s.gate_id,
    idempotency_key: s.idempotency_key,
    details: s.details,
    action: null,
    state: null,
    actor: null,
    reason: null,
    staff_id: staffIdOf(s.details),
    attention_overridden_by: null,
    id_check: null,
  }));
  withOverriders([...admits, ...history], await attentionOverridesOf(db, eid));
  // Stable sort: same-time rows keep admits first, then the history, then log order.
  return [...admits, ...history, ...others].sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : 0));
}

/**
 * Fills `attention_overridden_by` of each entry row (docs/kiosk.md "Attention notes"): the staff id of the first
 * attention override recorded for the ticket at the kiosk that admitted it, at or after the admission's
 * `scanned_at` and before the ticket's next entry (both times on that kiosk's clock). Pure.
 */
export function withOverriders(rows: ExportRow[], overrides: readonly AttentionOverrideRow[]): void {
  if (overrides.length === 0) return;
  const entries = rows.filter((row) => row.action === 'entry' && row.tid !== null && row.scanned_at !== null);
  const byTicket = new Map<string, ExportRow[]>();
  for (const row of entries) byTicket.set(row.tid!, [...(byTicket.get(row.tid!) ?? []), row]);
  for (const list of byTicket.values()) {
    list.sort((a, b) => (a.scanned_at! < b.scanned_at! ? -1 : a.scanned_at! > b.scanned_at! ? 1 : 0));
    list.forEach((row, index) => {
      const next = list[index + 1]?.scanned_at ?? null;
      const override = overrides.find(
        (o) => o.tid === row.tid && o.scanner_id === row.scanner_id && o.at >= row.scanned_at! && (next === null || o.at < next),
      );
      row.attention_overridden_by = override?.staff_id ?? null;
    });
  }
}

/** The staff id a check-in's scan_log details carry (services/check-in.ts), if any. */
function staffIdOf(details: string | null): string | null {
  if (details === null) return null;
  try {
    const parsed = JSON.parse(details) as { staff_id?: unknown };
    return typeof parsed.staff_id === 'string' ? parsed.staff_id : null;
  } catch {
    return null;
  }
}

export const exportCsv = (rows: readonly ExportRow[]): string =>
  [formatCsvRow(EXPORT_COLUMNS), ...rows.map((row) => formatCsvRow(EXPORT_COLUMNS.map((column) => row[column])))].join('\n') + '\n';

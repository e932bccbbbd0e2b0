/**
 * The import's rules for check-ins (docs/issuer.md "How `import` merges", docs/protocol.md "Door operations"), apart
 * from merge.ts: one check-in per ticket, the same admission at two moments or two admissions (a double admission,
 * recorded in the audit log with outcome `import_conflict` by merge-logs.ts).
 */
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';
import { entryKey, type CheckedFile } from './read.js';
import type { KindCounts } from './merge-rows.js';
import type { Row, TransferStore } from './store.js';
import { isLater } from './type-settings.js';

/** What the merge of one check-in reads and where it puts the double admissions it finds. */
export interface CheckinMerge {
  store: TransferStore;
  file: CheckedFile;
  nowIso: string;
  /** The audit rows of the double admissions found, added to the audit log after the file's (merge-logs.ts). */
  conflicts: Row[];
}

/**
 * One check-in per ticket. A row is the ticket's current admission (docs/protocol.md "Door operations"),
 * so two rows of one ticket are either the same admission at two moments, and the newer state stands
 * (sameAdmission), or two admissions: the earliest stands, the other is a double admission. The same
 * scan sent to both instances (same idempotency key) is one admission, not a conflict.
 */
export async function mergeCheckin(merge: CheckinMerge, dest: Row, incoming: Row, tid: string): Promise<keyof KindCounts | null> {
  const newer = await sameAdmission(merge, dest, incoming);
  if (newer === 'dest') return 'unchanged';
  if (newer === 'incoming') {
    // Newer on a version tie (a later state_at): still a version above this side's, for a serve writing meanwhile.
    const version = (incoming.version as number) > (dest.version as number) ? (incoming.version as number) : nextVersion(dest, incoming);
    await merge.store.replaceCheckin({ ...incoming, version });
    return 'updated';
  }
  if (supersedesAnnulled(incoming, dest)) {
    // This side's check-in was undone before the file's entry: the file's admission is the ticket's only one.
    await merge.store.replaceCheckin({ ...incoming, version: nextVersion(dest, incoming) });
    return 'updated';
  }
  if (supersedesAnnulled(dest, incoming)) return 'unchanged';
  // The admission that stands gets a version above both, on whichever side keeps it: a serve writing from
  // either row meanwhile (PostgreSQL) finds it changed, and both sides end with the same row.
  if (!isEarlier(incoming, dest)) {
    await merge.store.replaceCheckin({ ...dest, version: nextVersion(dest, incoming) });
    merge.conflicts.push(await conflictRow(merge, tid, incoming, dest));
    return null;
  }
  await merge.store.replaceCheckin({ ...incoming, version: nextVersion(dest, incoming) });
  merge.conflicts.push(await conflictRow(merge, tid, dest, incoming));
  return 'updated';
}

/**
 * Whether two rows of a ticket are one admission, and which is newer: 'dest' or 'incoming', else null
 * (two admissions). One admission when both have the same current entry (idempotency key), or when one
 * side's history holds the other's current entry (a re-entry or a change made after the copy was taken).
 * The newer is the one with the higher version (changes made), then the later state_at; this side on a tie.
 */
async function sameAdmission(merge: CheckinMerge, dest: Row, incoming: Row): Promise<'dest' | 'incoming' | null> {
  const newer = isNewerState(incoming, dest) ? 'incoming' : 'dest';
  if (dest.idempotency_key === incoming.idempotency_key) return newer;
  // The file has seen this side's entry and went on from it (its history's entries: read.ts).
  if (newer === 'incoming' && merge.file.entryKeys.has(entryKey(dest.tid, dest.idempotency_key))) return 'incoming';
  // This side has seen the file's entry and went on from it.
  if (newer === 'dest' && (await merge.store.entryKeysOf(incoming.tid as string)).has(incoming.idempotency_key as string)) return 'dest';
  return null;
}

/** The audit row of a double admission: the later check-in (`dropped`), and which one stands. */
async function conflictRow(merge: CheckinMerge, tid: string, dropped: Row, kept: Row): Promise<Row> {
  const ticket = (await merge.store.find('tickets', tid))!;
  return {
    at: merge.nowIso,
    scanned_at: dropped.checked_in_at!,
    tid,
    eid: ticket.eid!,
    scanner_id: dropped.scanner_id!,
    api_key_id: dropped.api_key_id!,
    gate_id: dropped.gate_id!,
    idempotency_key: dropped.idempotency_key!,
    outcome: IMPORT_CONFLICT_OUTCOME,
    details: JSON.stringify({
      check: 'import',
      reason: 'checked in on two instances of the issuer; the earlier check-in stands',
      recorded_at: dropped.recorded_at,
      kept: {
        checked_in_at: kept.checked_in_at,
        scanner_id: kept.scanner_id,
        gate_id: kept.gate_id,
        api_key_id: kept.api_key_id,
        idempotency_key: kept.idempotency_key,
      },
    }),
  };
}

/** The newer state of one admission: more changes made, then the later change; false on a tie. */
function isNewerState(a: Row, b: Row): boolean {
  if (a.version !== b.version) return (a.version as number) > (b.version as number);
  return isLater(a.state_at, b.state_at);
}

/** `later` entered after `annulled` was undone: the undone check-in admitted nobody, so `later` is the only admission. */
function supersedesAnnulled(later: Row, annulled: Row): boolean {
  return annulled.state === 'annulled' && later.state !== 'annulled' && !isLater(annulled.state_at, later.first_checked_in_at);
}

const nextVersion = (a: Row, b: Row): number => Math.max(a.version as number, b.version as number) + 1;

function isEarlier(a: Row, b: Row): boolean {
  const [ta, tb] = [Date.parse(a.checked_in_at as string), Date.parse(b.checked_in_at as string)];
  if (ta !== tb) return ta < tb;
  const [ra, rb] = [Date.parse(a.recorded_at as string), Date.parse(b.recorded_at as string)];
  if (ra !== rb) return ra < rb;
  return (a.idempotency_key as string) < (b.idempotency_key as string);
}

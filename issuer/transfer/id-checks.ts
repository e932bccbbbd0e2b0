/**
 * The import's rules for ID checks (docs/issuer.md "Moving an issuer to the venue and back", docs/protocol.md "ID
 * checks (project extension)"), apart from import.ts: a ticket type's check, the later setting standing; a ticket's
 * date of birth, this copy's standing, the file's filling one this copy lacks. A removed check (`none`) has no row
 * and so does not travel: the copy that still has the check keeps asking for it (the cautious side).
 */
import { policyKey, type Row, type TransferStore } from './store.js';

/** Strictly later (ISO times of either side). */
const isLater = (a: Row[string] | undefined, b: Row[string] | undefined): boolean => Date.parse(a as string) > Date.parse(b as string);

/** Each type check of the file: added when this copy has none for the type, replaced when the file's was set later. */
export async function mergeTypeIdChecks(
  store: TransferStore,
  rows: Iterable<Row>,
  counts: { added: number; updated: number; unchanged: number },
): Promise<void> {
  const here = await store.typeIdChecks();
  const added: Row[] = [];
  for (const row of rows) {
    const dest = here.get(policyKey(row));
    if (dest === undefined) {
      added.push(row);
      counts.added++;
    } else if (dest.id_check === row.id_check || !isLater(row.updated_at, dest.updated_at)) {
      counts.unchanged++;
    } else {
      await store.replaceTypeIdCheck(row);
      counts.updated++;
    }
  }
  await store.insertMany('ticket_type_id_checks', added);
}

/**
 * What a ticket's date of birth in the file does to this copy's ticket: `take` (this copy has none), `differs`
 * (both have one, not the same: this copy's is kept and the import warns, naming no date), or `same`.
 */
export function dobMerge(dest: Row, file: Row): 'take' | 'differs' | 'same' {
  const mine = dest.dob ?? null;
  const theirs = file.dob ?? null;
  if (theirs === null || mine === theirs) return 'same';
  return mine === null ? 'take' : 'differs';
}

/** The import's warning for tickets whose dates of birth differ (their ids, never a date). */
export function dobWarning(tids: readonly string[]): string | null {
  if (tids.length === 0) return null;
  const listed = tids.length <= 3 ? tids.join(', ') : `${tids.slice(0, 3).join(', ')}…`;
  return `${tids.length} ticket(s) have another date of birth in the file (${listed}); this data dir's is kept`;
}

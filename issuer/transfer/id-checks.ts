/**
 * The import's rules for ID checks (docs/issuer.md "Moving an issuer to the venue and back", docs/protocol.md "ID
 * checks (project extension)"), apart from merge.ts: a ticket type's check, the later setting standing; a ticket's
 * date of birth, this copy's standing, the file's filling one this copy lacks. A removed check (`none`) has no row
 * and so does not travel: the copy that still has the check keeps asking for it (the cautious side).
 */
import type { Row, TransferStore } from './store.js';
import { mergeTypeSettings } from './type-settings.js';

/** Each type check of the file: added when this copy has none for the type, replaced when the file's was set later. */
export async function mergeTypeIdChecks(
  store: TransferStore,
  rows: Iterable<Row>,
  counts: { added: number; updated: number; unchanged: number },
): Promise<void> {
  await mergeTypeSettings(await store.typeIdChecks(), rows, 'id_check', counts, {
    replace: (row) => store.replaceTypeIdCheck(row),
    insert: (added) => store.insertMany('ticket_type_id_checks', added),
  });
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

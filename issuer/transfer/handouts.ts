/**
 * The import's rules for party tickets and handouts (format version 7; docs/issuer.md "Moving an issuer to the
 * venue and back", docs/protocol.md "Party tickets (project extension)", "Handouts (project extension)"), apart
 * from merge.ts:
 *
 * - A ticket's party size and its own handout items: this copy's stand; the file's fill one this copy lacks (NULL:
 *   one person, no items of its own); both set and different: this copy's is kept and the import warns, naming
 *   the tickets. Neither carries a time of change, so the later one cannot be told.
 * - A ticket type's items: the later setting stands (type-settings.ts), as a type's ID check.
 * - Handouts: the union by handout id, which the kiosk made once: the same id is the same handout, and one that
 *   differs in what was handed over (store/columns.ts immutable) stops the import, as a ticket's code does. Both
 *   copies' handouts given stay, even beyond an item's count: each was handed over (the dashboard counts them).
 * - A party's people inside and admitted travel with its check-in row, and each entry's and exit's people with
 *   the admission history (merge-checkins.ts, merge-logs.ts); a handout station's mark with its setup code
 *   and key, which never change (store/columns.ts).
 */
import type { Row, TransferStore } from './store.js';
import { mergeTypeSettings } from './type-settings.js';

type Counts = { added: number; updated: number; unchanged: number; conflicts: number };

/** A ticket's own columns that this module merges (this copy's stand, the file's fill a NULL). */
const TICKET_COLUMNS = ['party', 'handouts'] as const;

/**
 * Merges the file's party size and own items into this copy's ticket: true when one was taken from the file;
 * the ticket's id goes to `differing` when both copies have another.
 */
export async function mergeTicketParty(store: TransferStore, dest: Row, file: Row, differing: string[]): Promise<boolean> {
  let taken = false;
  let differs = false;
  for (const column of TICKET_COLUMNS) {
    const mine = dest[column] ?? null;
    const theirs = file[column] ?? null;
    if (theirs === null || mine === theirs) continue;
    if (mine === null) {
      await store.setTicketColumn(dest.tid as string, column, theirs);
      taken = true;
    } else differs = true;
  }
  if (differs) differing.push(dest.tid as string);
  return taken;
}

/** The import's warning for tickets whose party size or own items differ (kept here). */
export function partyWarning(tids: readonly string[]): string | null {
  if (tids.length === 0) return null;
  const listed = tids.length <= 3 ? tids.join(', ') : `${tids.slice(0, 3).join(', ')}…`;
  return `${tids.length} ticket(s) have another party size or other handout items of their own in the file (${listed}); this data dir's are kept (ticket update --party / --handout to change them)`;
}

/** Each type's items of the file: added when this copy has none for the type, replaced when the file's were set later. */
export async function mergeTypeHandouts(store: TransferStore, rows: Iterable<Row>, counts: Counts): Promise<void> {
  await mergeTypeSettings(await store.typeRows('ticket_type_handouts'), rows, 'items', counts, {
    replace: (row) => store.replaceTypeHandouts(row),
    insert: (added) => store.insertMany('ticket_type_handouts', added),
  });
}

/**
 * The import's rules for attention flags and check-in notes (format version 7; docs/issuer.md "Moving an issuer to
 * the venue and back", docs/protocol.md "Attention notes (project extension)"), apart from merge.ts:
 *
 * - A ticket's flag and note, as one rule, as its party size (handouts.ts): this copy's stands; the file's fills a
 *   ticket that has neither flag nor note here; both set and different: this copy's is kept and the import warns,
 *   naming the tickets. A ticket's rule carries no time of change, so the later one cannot be told.
 * - A ticket type's flag and note: the later setting stands (type-settings.ts), as a type's ID check. A removed
 *   rule has no row and so does not travel: the copy that still has it keeps it.
 *
 * A ticket whose rule arrives takes the next number of this copy's note sequence (store.ts), so the kiosks of the
 * receiving copy hear of it at their next sync; the type rules travel whole on every notes page.
 */
import type { Row, TransferStore } from './store.js';
import { mergeTypeSettings } from './type-settings.js';

/** A ticket's rule has neither flag nor note (a ticket issued without --attention and --note). */
const isEmpty = (row: Row): boolean => (row.attention ?? 0) === 0 && (row.note ?? null) === null;

/**
 * Merges the file's flag and note into this copy's ticket: true when they were taken from the file; the ticket's
 * id goes to `differing` when both copies have another rule.
 */
export async function mergeTicketNote(store: TransferStore, dest: Row, file: Row, differing: string[]): Promise<boolean> {
  if (isEmpty(file) || (dest.attention === file.attention && (dest.note ?? null) === file.note)) return false;
  if (!isEmpty(dest)) {
    differing.push(dest.tid as string);
    return false;
  }
  await store.setTicketNote(dest.tid as string, file.attention === 1, file.note as string | null);
  return true;
}

/** The import's warning for tickets whose flag or note differ (this copy's kept), naming the tickets, never a note. */
export function noteWarning(tids: readonly string[]): string | null {
  if (tids.length === 0) return null;
  const listed = tids.length <= 3 ? tids.join(', ') : `${tids.slice(0, 3).join(', ')}…`;
  return `${tids.length} ticket(s) have another attention flag or check-in note in the file (${listed}); this data dir's are kept (ticket update --attention / --note to change them)`;
}

/** Each type's rule of the file: added when this copy has none for the type, replaced when the file's was set later. */
export async function mergeTypeNotes(
  store: TransferStore,
  rows: Iterable<Row>,
  counts: { added: number; updated: number; unchanged: number },
): Promise<void> {
  await mergeTypeSettings(await store.typeRows('ticket_type_notes'), rows, ['attention', 'note'], counts, {
    replace: (row) => store.replaceTypeNotes(row),
    insert: (added) => store.insertMany('ticket_type_notes', added),
  });
}

/**
 * The import's rule for a setting per event and ticket type that is set whole and dated (`updated_at`): a ticket
 * type's ID check (id-checks.ts), its handout items (handouts.ts) and its attention flag and note (attention-notes.ts). docs/issuer.md "Moving an issuer to the venue
 * and back": added when this copy has none for the type, replaced when the file's was set later, else this copy's
 * stands. A removed setting has no row and so does not travel: the copy that still has it keeps it.
 */
import { policyKey, type Row } from './store.js';

/** Strictly later (ISO times of either side). */
export const isLater = (a: Row[string] | undefined, b: Row[string] | undefined): boolean =>
  Date.parse(a as string) > Date.parse(b as string);

/** Merges the file's rows of one per-type table (`value`: the setting's column or columns), counting each as added, updated or unchanged. */
export async function mergeTypeSettings(
  here: Map<string, Row>,
  rows: Iterable<Row>,
  value: string | readonly string[],
  counts: { added: number; updated: number; unchanged: number },
  write: { replace: (row: Row) => Promise<void>; insert: (rows: Row[]) => Promise<void> },
): Promise<void> {
  const values = typeof value === 'string' ? [value] : value;
  const added: Row[] = [];
  for (const row of rows) {
    const dest = here.get(policyKey(row));
    if (dest === undefined) {
      added.push(row);
      counts.added++;
    } else if (values.every((column) => dest[column] === row[column]) || !isLater(row.updated_at, dest.updated_at)) {
      counts.unchanged++;
    } else {
      await write.replace(row);
      counts.updated++;
    }
  }
  await write.insert(added);
}

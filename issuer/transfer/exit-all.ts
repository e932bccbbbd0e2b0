/**
 * The import's rule for check-out at a set time (format version 8; docs/issuer.md "Moving an issuer to the venue and
 * back", docs/protocol.md "Check-out at a set time"), apart from merge.ts:
 *
 * - Per event, the setting made later (`since`) stands, this copy's on a tie. A removed setting has no row and so
 *   does not travel: the copy that still has it keeps it.
 * - `done`, the last moment whose exits are recorded, is each copy's own progress. A setting that arrives in an
 *   existing data dir arrives with none done, and the same setting on both copies keeps the earlier `done`: this copy
 *   then records the last moment passed again, which checks out only who is still inside since before it (the
 *   admissions it took itself); the file's exits are in the merged history already and nobody is checked out twice.
 *   A data dir created from the file takes the file's row as it is: its admissions are the file's.
 */
import type { KindCounts } from './merge-rows.js';
import type { Row, TransferStore } from './store.js';
import { isLater } from './type-settings.js';

/** The columns that make the setting; `done` is the copy's progress in applying it. */
const SETTING = ['at', 'time_zone', 'since'] as const;

/** The row this copy keeps for the file's setting `file` (this copy's `dest`, if any), or null: this copy's stays as it is. */
export function mergedExitAll(dest: Row | undefined, file: Row, created: boolean): Row | null {
  if (dest === undefined) return created ? file : { ...file, done: null };
  if (SETTING.every((column) => dest[column] === file[column])) {
    // The earlier progress of the two; none done on either side is the earliest.
    const [mine, theirs] = [dest.done as string | null, file.done as string | null];
    const done = mine === null || theirs === null ? null : isLater(theirs, mine) ? mine : theirs;
    return done === dest.done ? null : { ...dest, done };
  }
  return isLater(file.since, dest.since) ? { ...file, done: null } : null;
}

/** Each event's setting of the file: added, replaced (a later setting, or an earlier `done`) or unchanged. */
export async function mergeExitAllSettings(store: TransferStore, rows: Iterable<Row>, created: boolean, counts: KindCounts): Promise<void> {
  for (const row of rows) {
    const dest = await store.find('exit_all_settings', row.eid as string);
    const merged = mergedExitAll(dest, row, created);
    if (merged === null) counts.unchanged++;
    else if (dest === undefined) {
      await store.insertMany('exit_all_settings', [merged]);
      counts.added++;
    } else {
      await store.replaceExitAll(merged);
      counts.updated++;
    }
  }
}

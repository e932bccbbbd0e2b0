/**
 * What every table's merge of `import` shares (docs/issuer.md "Moving an issuer to the venue and back", "How
 * `import` merges"): the counts of each kind, the rows added in batches, and the comparisons of a row here with the
 * file's. The merge itself: merge.ts; the data dir's files: import-files.ts.
 */
import { AdminError } from '../error-catalogue.js';
import type { Row, TransferStore, TransferTable } from './store.js';

export interface KindCounts {
  added: number;
  updated: number;
  unchanged: number;
  conflicts: number;
}

export const emptyCounts = (): KindCounts => ({ added: 0, updated: 0, unchanged: 0, conflicts: 0 });

/** Earlier of two optional times; `a` (this issuer's) on a tie. */
export function earliest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) < Date.parse(a) ? b : a;
}

export const sameColumns = (a: Row, b: Row, columns: readonly string[]): boolean => columns.every((c) => a[c] === b[c]);

export function requireSame(dest: Row, row: Row, columns: readonly string[], what: string): void {
  if (!sameColumns(dest, row, columns)) throw conflict(`${what} is different in the file`);
}

/** File rows looked up together (one query) and added together (one statement per batch). */
export const MERGE_BATCH = 500;

/**
 * Rows to add to one table, inserted MERGE_BATCH at a time as the file is read: flat memory, and statements of
 * one size (each size of a multi-row INSERT is a statement of its own, prepared and kept by the connection).
 */
export class PendingInserts {
  private rows: Row[] = [];

  constructor(
    private readonly store: TransferStore,
    private readonly table: TransferTable,
  ) {}

  async add(row: Row): Promise<void> {
    this.rows.push(row);
    if (this.rows.length >= MERGE_BATCH) await this.flush();
  }

  /** Inserts what is pending (in the file's order); the last call of a table inserts the rest. */
  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    await this.store.insertMany(this.table, rows);
  }
}

/** Groups of up to `size` items, in their order. */
export function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export const listed = (ids: string[]): string => (ids.length <= 3 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}…`);

export const conflict = (why: string): AdminError =>
  new AdminError('IMPORT_CONFLICT', `${why}; nothing was imported (is the file an export of this issuer, and undamaged?)`);

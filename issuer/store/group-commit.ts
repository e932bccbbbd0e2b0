/**
 * Group commit: the write jobs that arrive within one event-loop turn run one
 * after another inside ONE `BEGIN IMMEDIATE` transaction, and every caller
 * hears its result only after that single commit (synchronous=FULL: on disk).
 * One fsync per batch instead of one per check-in.
 *
 * Each job runs in its own savepoint, so a job that throws rolls back only its
 * own writes. Because jobs run strictly in order, a job sees everything the
 * jobs before it wrote: a second request with the same idempotency key in the
 * same batch finds the first one's stored answer (docs/protocol.md
 * "Precedence" check 3, "waits for that result"). Other issuer processes are
 * serialised by SQLite's write lock.
 */
import type { Db } from './database.js';

export type WriteJob<T> = (db: Db) => T;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  job: WriteJob<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};
  // Both wrappers are built once: db.transaction() creates four new functions on every call.
  /** Runs a batch in one BEGIN IMMEDIATE … COMMIT; each job's outcome is collected, never thrown. */
  private readonly commitBatch: (batch: readonly Pending[]) => Outcome[];
  /** Inside the batch a better-sqlite3 transaction is a SAVEPOINT: a failing job undoes only itself. */
  private readonly runInSavepoint: (job: WriteJob<unknown>) => unknown;

  constructor(db: Db) {
    this.runInSavepoint = db.transaction((job: WriteJob<unknown>) => job(db));
    this.commitBatch = db.transaction((batch: readonly Pending[]) =>
      batch.map((pending): Outcome => {
        try {
          return { ok: true, value: this.runInSavepoint(pending.job) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    ).immediate;
  }

  /** Queues a write job; resolves with its result once the batch that ran it has committed. */
  run<T>(job: WriteJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        // setImmediate: after the I/O callbacks of this turn, so requests read together are batched together.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves when nothing is queued (used by graceful shutdown before closing the database). */
  drained(): Promise<void> {
    return this.idle;
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    let outcomes: Outcome[];
    try {
      outcomes = this.commitBatch(batch);
    } catch (error) {
      // BEGIN or COMMIT failed (e.g. the database stayed locked past busy_timeout): nothing of the batch is stored.
      for (const pending of batch) pending.reject(error);
      this.markIdle();
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
    this.markIdle();
  }
}

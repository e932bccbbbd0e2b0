/**
 * The SQLite side of the database port (sql.ts): one better-sqlite3
 * connection behind the asynchronous `Sql` interface.
 *
 * Writes go through a group commit: the jobs that arrive within one
 * event-loop turn run one after another inside ONE `BEGIN IMMEDIATE`
 * transaction, and every caller hears its result only after that single
 * commit (synchronous=FULL: on disk). One fsync per batch instead of one per
 * check-in. Each job runs in its own savepoint, so a job that throws rolls
 * back only its own writes. Because jobs run strictly in order, a job sees
 * everything the jobs before it wrote: a second request with the same
 * idempotency key in the same batch finds the first one's stored answer
 * (docs/protocol.md "Precedence" check 3, "waits for that result"). Other
 * issuer processes are serialised by SQLite's write lock. What the jobs of a
 * batch share (sql.ts BatchState: the scan log's chain head) is written once,
 * just before the COMMIT.
 *
 * Every statement runs synchronously underneath, so a batch never yields to
 * the event loop between its BEGIN and its COMMIT: no other request's read on
 * this connection can see a batch's uncommitted rows.
 */
import { openDatabase, prepareCached, type Db, type OpenOptions } from './database.js';
import type { BatchState, Sql, SqlDatabase, SqlParams, SqlRunResult, WriteJob } from './sql.js';

/** `Sql` over one better-sqlite3 connection (statements prepared once per connection). */
export function sqliteSql(db: Db): Sql {
  // better-sqlite3 takes positional values as arguments and named ones as one object.
  const bind = (params: SqlParams | undefined): unknown[] => (params === undefined ? [] : Array.isArray(params) ? params : [params]);
  return {
    dialect: 'sqlite',
    get: <T>(sql: string, params?: SqlParams) => settle(() => prepareCached(db, sql).get(...bind(params)) as T | undefined),
    all: <T>(sql: string, params?: SqlParams) => settle(() => prepareCached(db, sql).all(...bind(params)) as T[]),
    run: (sql: string, params?: SqlParams) =>
      settle((): SqlRunResult => ({ changes: prepareCached(db, sql).run(...bind(params)).changes })),
  };
}

/** A synchronous call as a promise: its exception becomes the rejection, as a PostgreSQL error would. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** A deferred read transaction on a read-only connection of its own to `file`, closed afterwards. */
export async function readSnapshot<T>(file: string, job: (tx: Sql) => Promise<T>): Promise<T> {
  const reader = openDatabase(file, { readonly: true });
  try {
    reader.exec('BEGIN');
    try {
      const value = await job(sqliteSql(reader));
      reader.exec('COMMIT');
      return value;
    } catch (error) {
      if (reader.inTransaction) reader.exec('ROLLBACK');
      throw error;
    }
  } finally {
    reader.close();
  }
}

interface Pending {
  job: WriteJob<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A value of the batch's shared state (sql.ts BatchState) and the write that stores it before the COMMIT. */
interface Kept {
  value: unknown;
  store: (tx: Sql, value: unknown) => Promise<void>;
}

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite';
  readonly read: Sql;
  /** What write jobs get: `read`'s connection, with the batch's shared state. */
  private readonly jobSql: Sql;
  private kept = new Map<string, Kept>();
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};

  constructor(readonly connection: Db) {
    // Each job's savepoint copies every page it changes to a sub-journal, which SQLite spills to a temporary file
    // past 64 KiB: a check-in changes about that much, so every check-in wrote a temporary file. In memory it is
    // a copy (docs/benchmarks.md "Fewer writes per check-in").
    if (!connection.readonly && !connection.memory) connection.pragma('temp_store = MEMORY');
    this.read = sqliteSql(connection);
    const batch: BatchState = {
      get: <T>(key: string) => this.kept.get(key)?.value as T | undefined,
      set: <T>(key: string, value: T, store: (tx: Sql, value: T) => Promise<void>) =>
        void this.kept.set(key, { value, store: store as Kept['store'] }),
    };
    this.jobSql = { ...this.read, batch };
  }

  write<T>(job: WriteJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job: job as WriteJob<unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1 && !this.running) this.idle = new Promise((done) => (this.markIdle = done));
      this.schedule();
    });
  }

  drained(): Promise<void> {
    return this.idle;
  }

  /**
   * A deferred read transaction on a read-only connection of its own: the group commit shares `connection`, so a
   * BEGIN there would collide with its batches, and in WAL mode a reader never blocks the writer (nor waits for
   * it). An in-memory database has no file to open twice: there the job runs as a write job, which holds the
   * write lock and so sees one unchanging database.
   */
  snapshot<T>(job: (tx: Sql) => Promise<T>): Promise<T> {
    return this.connection.memory ? this.write(job) : readSnapshot(this.connection.name, job);
  }

  async close(): Promise<void> {
    await this.drained();
    this.connection.close();
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate: after the I/O callbacks of this turn, so requests read together are batched together.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    const batch = this.queue;
    this.queue = [];
    const outcomes = await this.commitBatch(batch);
    this.running = false;
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
    if (this.queue.length > 0) this.schedule();
    else this.markIdle();
  }

  /**
   * One BEGIN IMMEDIATE … COMMIT; each job's outcome is collected, never thrown. The transaction statements are
   * prepared once per connection like every other (a savepoint and its release per job: exec() parsed them again
   * for every check-in; docs/benchmarks.md "SQLite check-in cost, and the half rate in bursts").
   */
  private async commitBatch(batch: readonly Pending[]): Promise<Outcome[]> {
    const db = this.connection;
    const step = (sql: string): void => void prepareCached(db, sql).run();
    try {
      step('BEGIN IMMEDIATE');
    } catch (error) {
      // The database stayed locked past busy_timeout (or is gone): nothing of the batch is stored.
      return batch.map(() => ({ ok: false, error }));
    }
    const outcomes: Outcome[] = [];
    try {
      for (const pending of batch) {
        const keptBefore = new Map(this.kept);
        step('SAVEPOINT job');
        try {
          const value = await pending.job(this.jobSql);
          step('RELEASE job');
          outcomes.push({ ok: true, value });
        } catch (error) {
          step('ROLLBACK TO job');
          step('RELEASE job');
          this.kept = keptBefore;
          outcomes.push({ ok: false, error });
        }
      }
      try {
        for (const { value, store } of this.kept.values()) await store(this.read, value);
        step('COMMIT');
      } catch (error) {
        // The shared state's write or COMMIT failed (disk full, I/O): nothing of the batch is stored, so nobody hears success.
        if (db.inTransaction) db.exec('ROLLBACK');
        return batch.map(() => ({ ok: false, error }));
      }
    } finally {
      this.kept = new Map();
    }
    return outcomes;
  }
}

/** Opens (and by default migrates) a SQLite file behind the port. */
export function openSqliteDatabase(file: string, options: OpenOptions = {}): SqliteDatabase {
  return new SqliteDatabase(openDatabase(file, options));
}

/**
 * The one asynchronous port every part of the issuer reaches its database
 * through (docs/issuer.md "Where the database is"): services, routes, the
 * admin operations and the dashboard write their SQL once, against `Sql`, and
 * run unchanged on SQLite (sqlite-database.ts) and PostgreSQL
 * (postgres-database.ts).
 *
 * The SQL is the common subset of both dialects. Parameters are positional
 * `?` or named `@name` (with an object); the PostgreSQL side rewrites them to
 * `$1`, `$2`, … . Integers come back as JavaScript numbers on both sides.
 */

export type SqlValue = string | number | null;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export type Dialect = 'sqlite' | 'postgres';

/** A connection, inside a transaction when it is handed to a write job. */
export interface Sql {
  readonly dialect: Dialect;
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<SqlRunResult>;
  /** Only on a write job's connection in SQLite's group commit (sqlite-database.ts): state shared by the batch's jobs. */
  readonly batch?: BatchState;
}

/**
 * State the jobs of one SQLite group commit share, and the one write that stores it, made once before the batch's
 * COMMIT instead of once per job (the scan log's chain head, store/audit-log.ts; docs/benchmarks.md "Fewer writes
 * per check-in"). A job that fails leaves it as the job found it; a batch that fails stores none of it.
 */
export interface BatchState {
  get<T>(key: string): T | undefined;
  /** Keeps `value` under `key` for the rest of the batch; `store` writes the last value kept, in the transaction. */
  set<T>(key: string, value: T, store: (tx: Sql, value: T) => Promise<void>): void;
}

/**
 * A job of the write path: reads what it needs and writes, all inside one
 * transaction. A job must depend only on what it reads through `tx` (and its
 * arguments): the PostgreSQL store runs it again when a concurrent writer won
 * (a unique key, a serialization failure or a deadlock), and the second run
 * must then see the winner's rows and decide from them.
 */
export type WriteJob<T> = (tx: Sql) => Promise<T>;

export interface WriteOptions {
  /**
   * PostgreSQL: no BEGIN and COMMIT around the job; each of its statements commits on its own. Only for a job
   * whose reads need no common snapshot and whose writes are ONE statement, its last (store/write-batch.ts): the
   * check-in's two round trips (docs/issuer.md "The check-in on PostgreSQL: two round trips"). Retried as any
   * write job. SQLite ignores it: its jobs share the group commit's transaction.
   */
  autocommit?: boolean;
}

export interface SqlDatabase {
  readonly dialect: Dialect;
  /** Reads outside any write transaction (each statement sees committed data). */
  readonly read: Sql;
  /**
   * Runs a job in a write transaction and resolves after its commit is durable.
   * SQLite batches the jobs of one event-loop turn into one commit (group
   * commit); PostgreSQL gives each job its own transaction from the pool and
   * retries it when a concurrent writer won.
   */
  write<T>(job: WriteJob<T>, options?: WriteOptions): Promise<T>;
  /**
   * Runs a read-only job on ONE consistent snapshot of the database, while
   * writers keep committing (an export of every table). SQLite: a deferred
   * read transaction on a separate read-only connection (a WAL reader never
   * blocks the writer); PostgreSQL: a pooled client in a REPEATABLE READ READ
   * ONLY transaction. The job must not write.
   */
  snapshot<T>(job: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Why this database can take no more writes, once that is known for good (SQLite's database thread stopped);
   * absent or null while it works. The readiness probe reports it (docs/protocol.md "Health and readiness").
   */
  readonly unusable?: Error | null;
  /** Resolves when no write is queued or running (graceful shutdown before close). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Thrown by a write job whose conditional write found the row changed by a concurrent writer (an
 * `UPDATE … WHERE version = v` that changed nothing). It carries PostgreSQL's serialization-failure
 * SQLSTATE, so the PostgreSQL store runs the job again, which then reads the new state
 * (docs/protocol.md "One state per ticket, exact under concurrency"). On SQLite the write lock
 * serialises writers, so it cannot happen there.
 */
export class WriteConflict extends Error {
  readonly code = '40001';
  constructor(what: string) {
    super(`concurrent change: ${what}`);
    this.name = 'WriteConflict';
  }
}

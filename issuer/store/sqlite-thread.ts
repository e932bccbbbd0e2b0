/**
 * SQLite on a database thread of its own, for `serve` (docs/issuer.md "Where
 * the database is"). better-sqlite3 is synchronous: on the main thread every
 * group commit's fsync stopped the event loop, so requests that had arrived
 * waited for a disk flush they had no part in (the check-in p99 at half load,
 * docs/benchmarks.md). Here a worker thread owns the writing connection and
 * runs the group commit (sqlite-database.ts), while the main thread keeps
 * reading sockets and answering.
 *
 * - Writes are named jobs (named-jobs.ts): the name and arguments go to the
 *   thread, the answer comes back after its batch's commit is on disk. The
 *   thread does not start unless it has every job this thread defined.
 * - Reads stay on the main thread, on a connection of their own: in WAL mode a
 *   reader never waits for the writer, and a read is far cheaper than a trip
 *   to the thread and back.
 * - If the thread dies, every write waiting and every later one fails as
 *   "database unavailable" (503 with Retry-After), never hangs, and a new
 *   thread is started (after 0.5 s, doubling to 30 s while it keeps failing):
 *   a venue's only `serve` must not stay without writes until someone notices.
 *   A write that was waiting may have committed before the thread died; its
 *   scanner retries with the same idempotency key and gets the stored answer.
 */
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';
import { definedJobNames, isNamedJob } from './named-jobs.js';
import type { Sql, SqlDatabase, WriteJob } from './sql.js';
import { readSnapshot, sqliteSql } from './sqlite-database.js';
import { decodeError, decodeValue } from './thread-codec.js';

/** One write for the thread: a named job's name and arguments. */
export interface ThreadWrite {
  id: number;
  name: string;
  args: unknown;
}

/** One write's outcome. */
export type ThreadResult = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: Parameters<typeof decodeError>[0] };

/**
 * Main thread → database thread. Writes travel in batches, one message for those made within one event-loop turn
 * (and the answers likewise, one message per commit): a message costs far more than its contents.
 */
export type ThreadRequest = { kind: 'writes'; writes: ThreadWrite[] } | { kind: 'close' };

/** Database thread → main thread. */
export type ThreadReply = { kind: 'ready' } | { kind: 'done'; results: ThreadResult[] } | { kind: 'closed' };

/** The error code of a write whose thread is gone; error-catalogue.ts answers it as "database unavailable" (503). */
export const THREAD_EXITED = 'SQLITE_IOERR_DATABASE_THREAD';

/** Told when the thread stops (and when the next one will be tried) and when a new one has taken over: serve logs both. */
export type ThreadEvent = { kind: 'stopped'; error: Error; retryInMs: number } | { kind: 'restarted'; restarts: number };

const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class SqliteThreadDatabase implements SqlDatabase {
  readonly dialect = 'sqlite';
  readonly read: Sql;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private outbox: ThreadWrite[] = [];
  private failure: Error | null = null;
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | null = null;
  private worker!: Worker;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private restarts = 0;
  /** Set by serve (issuer/app.ts) to log the thread's stops and restarts. */
  notify: (event: ThreadEvent) => void = () => undefined;

  private constructor(
    worker: Worker,
    private readonly readConnection: Db,
    private readonly file: string,
    private readonly script: URL,
  ) {
    this.read = sqliteSql(readConnection);
    this.adopt(worker);
  }

  /**
   * Starts the thread on `file` (`script`: the compiled issuer/database-thread.js) and keeps `readConnection`
   * for reads; resolves when the thread has opened the database, rejects with its error otherwise.
   */
  static async start(file: string, script: URL, readConnection: Db): Promise<SqliteThreadDatabase> {
    return new SqliteThreadDatabase(await startThread(file, script), readConnection, file, script);
  }

  /** Listens to a thread that said it is ready; events of a thread replaced since are not this one's. */
  private adopt(worker: Worker): void {
    this.worker = worker;
    worker.on('message', (reply: ThreadReply) => worker === this.worker && this.receive(reply));
    worker.on('error', (error) => worker === this.worker && this.fail(error));
    worker.on('exit', (code) => worker === this.worker && this.fail(new Error(`the database thread exited (code ${code})`)));
  }

  get unusable(): Error | null {
    return this.failure;
  }

  write<T>(job: WriteJob<T>): Promise<T> {
    if (!isNamedJob(job)) {
      return Promise.reject(new Error('a write on the database thread must be a named job (issuer/store/named-jobs.ts)'));
    }
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.outbox.push({ id, name: job.jobName, args: job.jobArgs });
      // After this turn's I/O callbacks, so the writes of requests read together go in one message.
      if (this.outbox.length === 1) setImmediate(() => this.send());
    });
  }

  private send(): void {
    const writes = this.outbox;
    this.outbox = [];
    if (this.failure === null && writes.length > 0) this.worker.postMessage({ kind: 'writes', writes } satisfies ThreadRequest);
  }

  /** As SqliteDatabase's: a read transaction on a read-only connection of its own, on this thread. */
  snapshot<T>(job: (tx: Sql) => Promise<T>): Promise<T> {
    return readSnapshot(this.readConnection.name, job);
  }

  drained(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    clearTimeout(this.restartTimer);
    await this.drained();
    if (this.failure === null) {
      const closed = new Promise<void>((resolve) => {
        this.worker.on('message', (reply: ThreadReply) => reply.kind === 'closed' && resolve());
        this.worker.once('exit', () => resolve());
      });
      this.worker.postMessage({ kind: 'close' } satisfies ThreadRequest);
      await closed;
    }
    await this.worker.terminate();
    this.readConnection.close();
  }

  private receive(reply: ThreadReply): void {
    if (reply.kind !== 'done') return;
    for (const result of reply.results) {
      const pending = this.pending.get(result.id);
      if (pending === undefined) continue;
      this.pending.delete(result.id);
      if (result.ok) pending.resolve(decodeValue(result.value));
      else pending.reject(decodeError(result.error));
    }
    if (this.pending.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** The thread is gone: nothing waiting hears success, and nothing later is sent. */
  private fail(cause: Error): void {
    if (this.failure !== null || this.closing !== null) return;
    const failure = Object.assign(new Error(`the issuer's database thread stopped: ${cause.message}`, { cause }), { code: THREAD_EXITED });
    this.failure = failure;
    for (const pending of this.pending.values()) pending.reject(failure);
    this.pending.clear();
    for (const wake of this.idleWaiters.splice(0)) wake();
    this.scheduleRestart(failure);
  }

  private scheduleRestart(error: Error): void {
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    this.notify({ kind: 'stopped', error, retryInMs: delay });
    this.restartTimer = setTimeout(() => void this.restart(), delay);
    this.restartTimer.unref?.();
  }

  /** A new thread on the same file; writes go to it once it is ready (until then they fail as above). */
  private async restart(): Promise<void> {
    if (this.closing !== null) return;
    let worker: Worker;
    try {
      worker = await startThread(this.file, this.script);
    } catch (error) {
      if (this.closing === null) this.scheduleRestart(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.closing !== null) {
      await worker.terminate();
      return;
    }
    const old = this.worker;
    this.adopt(worker);
    void old.terminate();
    this.failure = null;
    this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    this.notify({ kind: 'restarted', restarts: ++this.restarts });
  }
}

/** A database thread on `file` that said it is ready (it opened the database), or its error. */
function startThread(file: string, script: URL): Promise<Worker> {
  // The process's own flags, but not --input-type (a process started with `node --input-type=module -e …`):
  // a worker runs a file, and Node refuses that flag for one.
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
  // The names of the jobs this thread defined: the database thread refuses to start without each (named-jobs.ts).
  const worker = new Worker(script, { workerData: { file, jobs: definedJobNames() }, execArgv });
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    const exited = (code: number) => reject(new Error(`the database thread exited (code ${code}) before it was ready`));
    worker.once('error', failed);
    worker.once('exit', exited);
    worker.once('message', (reply: ThreadReply) => {
      worker.off('error', failed);
      worker.off('exit', exited);
      if (reply.kind === 'ready') resolve(worker);
      else {
        void worker.terminate();
        reject(new Error(`the database thread answered ${reply.kind} before it was ready`));
      }
    });
  });
}

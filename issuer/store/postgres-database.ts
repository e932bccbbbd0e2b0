/**
 * The PostgreSQL side of the database port (sql.ts; docs/issuer.md "Where the
 * database is"): a `pg.Pool` behind the same asynchronous `Sql` interface the
 * SQLite side offers, so services, routes and admin operations run unchanged.
 *
 * - Reads run each statement on the pool (autocommit): every statement sees
 *   what was committed before it started.
 * - Each write job gets its own READ COMMITTED transaction on one pooled
 *   client. Several serving processes write at once here, so exactly-once
 *   rests on constraints (a primary key on checkins.tid), not on a lock in one
 *   process: when a concurrent writer won (unique_violation, a serialization
 *   failure, a deadlock) the whole job runs again in a fresh transaction,
 *   reads the winner's rows and decides from them (the WriteJob contract).
 * - The connection URL may carry a password: it never goes into an error
 *   message or a log. Passwords are meant to come from PGPASSWORD or .pgpass,
 *   which pg reads itself.
 */
import pg from 'pg';
import { AdminError } from '../error-catalogue.js';
import type { Sql, SqlDatabase, SqlParams, SqlRunResult, SqlValue, WriteJob, WriteOptions } from './sql.js';

export interface PostgresOptions {
  /** Connections in the pool (pg's default is 10). */
  poolSize?: number;
  /** Shown in pg_stat_activity, so an operator can tell the issuer's connections apart. */
  applicationName?: string;
}

/** How long a query waits for a pooled connection (also the first connection at open). */
const CONNECT_TIMEOUT_MS = 10_000;

/** A whole job is tried this often when concurrent writers keep winning; then the last error is thrown. */
const MAX_WRITE_ATTEMPTS = 8;

/**
 * SQLSTATEs after which a rerun of the job can succeed: the transaction lost
 * to another one and nothing of it was stored.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
const RETRYABLE_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '23505', // unique_violation: a concurrent writer inserted the row first; the rerun reads it
]);

/** True when a write job that failed with `error` should run again in a fresh transaction. */
export function isRetryableWriteError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/** A statement in PostgreSQL's form: `$1`, `$2`, … and the values in that order. */
export interface PostgresQuery {
  text: string;
  values: SqlValue[];
}

/** What the scan of one SQL text found; cached, since the issuer runs the same few texts over and over. */
type Parsed =
  | { kind: 'none'; text: string }
  | { kind: 'positional'; text: string; count: number }
  | { kind: 'named'; text: string; names: readonly string[] };

const parsedCache = new Map<string, Parsed>();
/** The issuer's SQL is a fixed set of texts; a cap keeps a caller that builds SQL on the fly from growing the map forever. */
const PARSED_CACHE_LIMIT = 2000;

/**
 * Rewrites the port's `?` (positional, params as an array) or `@name` (params
 * as an object) placeholders to PostgreSQL's `$n`. A name used twice gets one
 * `$n`. Placeholders inside single-quoted literals, double-quoted identifiers
 * and comments are left alone (a `'` in a `--` comment must not open a
 * literal either). Not understood, so not to be used with placeholders:
 * E'…\'…' escapes and $$-quoted bodies. Mixing both styles, a count that does not match, or a
 * missing name is an error naming the placeholder, never the values (they may
 * be secrets).
 */
export function toPostgresPlaceholders(sql: string, params?: SqlParams): PostgresQuery {
  let parsed = parsedCache.get(sql);
  if (parsed === undefined) {
    parsed = parsePlaceholders(sql);
    if (parsedCache.size >= PARSED_CACHE_LIMIT) parsedCache.clear();
    parsedCache.set(sql, parsed);
  }
  switch (parsed.kind) {
    case 'none':
      if (params !== undefined && Array.isArray(params) && params.length > 0) {
        throw new Error(`SQL has no placeholders but ${params.length} positional values were given`);
      }
      return { text: parsed.text, values: [] };
    case 'positional': {
      if (params === undefined || !Array.isArray(params)) {
        throw new Error(`SQL has ${parsed.count} positional ? placeholders: pass the values as an array`);
      }
      const values = params as readonly SqlValue[];
      if (values.length !== parsed.count) {
        throw new Error(`SQL has ${parsed.count} positional ? placeholders but ${values.length} values were given`);
      }
      return { text: parsed.text, values: [...values] };
    }
    case 'named': {
      if (params === undefined || Array.isArray(params)) {
        throw new Error(`SQL has named placeholders (@${parsed.names[0]}): pass the values as an object`);
      }
      const named = params as Readonly<Record<string, SqlValue>>;
      const values = parsed.names.map((name) => {
        if (!Object.hasOwn(named, name) || named[name] === undefined) throw new Error(`missing named parameter @${name}`);
        return named[name];
      });
      return { text: parsed.text, values };
    }
  }
}

const NAME_START = /[A-Za-z_]/;
const NAME_REST = /[A-Za-z0-9_]/;

function parsePlaceholders(sql: string): Parsed {
  let text = '';
  let positional = 0;
  const names: string[] = [];
  const numberOf = new Map<string, number>();
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    const next = sql[i + 1];
    if (char === "'" || char === '"') {
      // A quoted literal or identifier runs to the matching quote; a doubled quote inside is an escaped one, and
      // scanning on from it simply closes and reopens. An unterminated quote keeps the rest of the text as it is.
      const end = sql.indexOf(char, i + 1);
      const stop = end === -1 ? sql.length : end + 1;
      text += sql.slice(i, stop);
      i = stop;
    } else if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      text += sql.slice(i, stop);
      i = stop;
    } else if (char === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      text += sql.slice(i, stop);
      i = stop;
    } else if (char === '?') {
      positional += 1;
      text += `$${positional}`;
      i += 1;
    } else if (char === '@' && next !== undefined && NAME_START.test(next)) {
      let end = i + 2;
      while (end < sql.length && NAME_REST.test(sql[end]!)) end += 1;
      const name = sql.slice(i + 1, end);
      let number = numberOf.get(name);
      if (number === undefined) {
        names.push(name);
        number = names.length;
        numberOf.set(name, number);
      }
      text += `$${number}`;
      i = end;
    } else {
      text += char;
      i += 1;
    }
  }
  if (positional > 0 && names.length > 0) throw new Error('SQL mixes positional ? and named @name placeholders: use one style');
  if (positional > 0) return { kind: 'positional', text, count: positional };
  if (names.length > 0) return { kind: 'named', text, names };
  return { kind: 'none', text };
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * The pool's own type parsers (pg.types is process-wide and other code may
 * rely on its defaults): BIGINT and NUMERIC come back as numbers, like
 * SQLite's integers, instead of pg's strings. A BIGINT beyond 2^53 would lose
 * digits as a number, so it fails the query instead of coming back wrong.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8_OID) return parseSafeInteger;
    if (format !== 'binary' && oid === NUMERIC_OID) return Number;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function parseSafeInteger(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`a BIGINT value does not fit a JavaScript number exactly: ${value}`);
  return number;
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * Statement names by text. The issuer sends a fixed set of texts (the bulk insert's adds one per batch size), so
 * the map stays small; past the cap, texts go unnamed (parsed each time) rather than grow it without end.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 1000;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) statementNames.set(text, (name = `tv${statementNames.size + 1}`));
  return name;
}

/** `Sql` over a pool or one client; `onError` sees every failed statement (the write path tracks them). */
function postgresSql(target: Queryable, guard: () => void = () => {}, onError: (error: unknown) => void = () => {}): Sql {
  const query = async (sql: string, params: SqlParams | undefined): Promise<pg.QueryResult> => {
    guard();
    const { text, values } = toPostgresPlaceholders(sql, params);
    try {
      // No values: the simple protocol, which also takes several statements in one text (migrations). With values,
      // a named statement: each connection parses and plans a text once, not on every request.
      return await target.query(values.length === 0 ? text : { name: statementName(text), text, values });
    } catch (error) {
      onError(error);
      throw error;
    }
  };
  return {
    dialect: 'postgres',
    get: async <T>(sql: string, params?: SqlParams) => (await query(sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params?: SqlParams) => (await query(sql, params)).rows as T[],
    run: async (sql: string, params?: SqlParams): Promise<SqlRunResult> => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
  };
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown; retryable: boolean };

class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres';
  readonly read: Sql;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly pool: pg.Pool) {
    this.read = postgresSql(pool);
  }

  async write<T>(job: WriteJob<T>, options: WriteOptions = {}): Promise<T> {
    this.inFlight += 1;
    try {
      for (let attempt = 1; ; attempt += 1) {
        const outcome = options.autocommit === true ? await this.attemptAutocommit(job) : await this.attempt(job);
        if (outcome.ok) return outcome.value;
        if (!outcome.retryable || attempt >= MAX_WRITE_ATTEMPTS) throw outcome.error;
        await sleep(backoffMs(attempt));
      }
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** One pooled client in a REPEATABLE READ READ ONLY transaction: every statement of the job sees the same snapshot. */
  async snapshot<T>(job: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // As in attempt(): a checked-out client whose connection drops must not crash the process; the next statement fails.
    const ignoreConnectionError = () => undefined;
    client.on('error', ignoreConnectionError);
    let ended = false;
    let broken: Error | undefined;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY').catch((error: unknown) => {
        // The connection is in an unknown state: released with the error, the pool discards it.
        broken = error as Error;
        throw error;
      });
      try {
        const value = await job(
          postgresSql(client, () => {
            if (ended) throw new Error('a snapshot job used its transaction after the job had ended');
          }),
        );
        ended = true;
        await client.query('COMMIT');
        return value;
      } catch (error) {
        ended = true;
        await client.query('ROLLBACK').catch((rollbackError: unknown) => {
          broken = rollbackError as Error;
        });
        throw error;
      }
    } finally {
      client.off('error', ignoreConnectionError);
      client.release(broken);
    }
  }

  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): Promise<void> {
    this.closing ??= this.drained().then(() => this.pool.end());
    return this.closing;
  }

  /**
   * The job on the pool, no transaction: each statement commits on its own (WriteOptions.autocommit). A failed
   * statement undid only itself; the job's one write is its last statement, so nothing of a failed attempt stays.
   */
  private async attemptAutocommit<T>(job: WriteJob<T>): Promise<Attempt<T>> {
    let failed: { error: unknown } | undefined;
    try {
      return { ok: true, value: await job(postgresSql(this.pool, undefined, (error) => (failed ??= { error }))) };
    } catch (error) {
      return { ok: false, error, retryable: isRetryableWriteError(error) || isRetryableWriteError(failed?.error) };
    }
  }

  /** One transaction: BEGIN, the job, COMMIT; ROLLBACK on any failure. Never throws: the outcome says what happened. */
  private async attempt<T>(job: WriteJob<T>): Promise<Attempt<T>> {
    const client = await this.pool.connect().catch((error: unknown) => error as Error);
    if (client instanceof Error) return { ok: false, error: client, retryable: false };
    // A checked-out client whose connection drops between two statements emits 'error' (pg-pool listens only to
    // idle ones); unheard, that would crash the process. The next statement or the ROLLBACK then fails instead.
    const ignoreConnectionError = () => undefined;
    client.on('error', ignoreConnectionError);
    let ended = false;
    // The first statement that failed in this transaction. After it PostgreSQL refuses every other statement
    // (25P02) and turns COMMIT into a ROLLBACK, even when the job caught the error and returned normally.
    let failed: { error: unknown } | undefined;
    const tx = postgresSql(
      client,
      () => {
        if (ended) throw new Error('a write job used its transaction after the job had ended');
      },
      (error) => (failed ??= { error }),
    );
    let broken: Error | undefined;
    const rollback = async () => {
      await client.query('ROLLBACK').catch((error: unknown) => {
        // The connection is in an unknown state: release it with the error so the pool discards it.
        broken = error as Error;
      });
    };
    try {
      await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
      let outcome: Attempt<T>;
      try {
        outcome = { ok: true, value: await job(tx) };
      } catch (error) {
        // A job that throws after a retryable statement failed (e.g. it turned the unique violation into its own
        // error, or a later statement hit 25P02) lost a race: it runs again and decides from the winner's rows.
        outcome = { ok: false, error, retryable: isRetryableWriteError(error) || isRetryableWriteError(failed?.error) };
      }
      ended = true;
      if (outcome.ok && failed !== undefined) {
        // The job swallowed a failed statement: the transaction cannot commit, so its writes are not stored.
        outcome = { ok: false, error: failed.error, retryable: isRetryableWriteError(failed.error) };
      }
      if (!outcome.ok) {
        await rollback();
        return outcome;
      }
      const commit = await client.query('COMMIT');
      // PostgreSQL answers COMMIT of an aborted transaction with ROLLBACK, not an error.
      if (commit.command === 'ROLLBACK') {
        return { ok: false, error: new Error('the write transaction was rolled back by PostgreSQL at COMMIT'), retryable: false };
      }
      return outcome;
    } catch (error) {
      // BEGIN or COMMIT failed (a lost connection, a deferred constraint). After a failed COMMIT the transaction
      // is already gone; ROLLBACK then only warns.
      ended = true;
      await rollback();
      return { ok: false, error, retryable: isRetryableWriteError(error) };
    } finally {
      client.off('error', ignoreConnectionError);
      client.release(broken);
    }
  }
}

/** 1–20 ms, growing with the attempt, random so two writers that collided do not collide again in step. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(20, 2 ** attempt);
  return 1 + Math.floor(Math.random() * ceiling);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Opens a pool on `url` (postgres:// or postgresql://, no password in it;
 * PGPASSWORD or .pgpass supply one) and checks that it answers. A failure
 * names the host and database at most, never the URL.
 */
export async function openPostgresDatabase(url: string, options: PostgresOptions = {}): Promise<SqlDatabase> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: options.applicationName ?? 'ticket-issuer',
    // A request waits this long for a connection, then fails (503 with Retry-After), never hangs.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
  });
  // An idle client whose connection drops emits 'error' on the pool; unheard, it would crash the process. Nothing
  // is logged (the error could echo connection details): the next query fails clearly on its own.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new AdminError(
      'DATABASE_UNREACHABLE',
      `cannot reach the PostgreSQL database${describeTarget(url)}: ${messageWithoutUrl(error, url)}`,
      {
        cause: error,
      },
    );
  }
  return new PostgresDatabase(pool);
}

/** " at HOST:PORT/DATABASE" from the URL, or nothing when it does not parse: never the user info. */
function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    const database = parsed.pathname.replace(/^\//, '');
    return parsed.host ? ` at ${parsed.host}${database ? `/${decodeURIComponent(database)}` : ''}` : '';
  } catch {
    return '';
  }
}

/** pg's own messages do not echo the connection string or its password; this makes sure of it. */
function messageWithoutUrl(error: unknown, url: string): string {
  let message = error instanceof Error ? error.message : String(error);
  if (url) message = message.replaceAll(url, '<database URL>');
  const password = passwordOf(url);
  if (password) message = message.replaceAll(password, '<password>');
  return message;
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

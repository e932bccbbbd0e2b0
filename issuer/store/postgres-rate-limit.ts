/**
 * A store for @fastify/rate-limit (v10) on PostgreSQL, so that several
 * serving processes behind one balancer share their windows (docs/issuer.md
 * "Serving nodes", "Where the database is"): with the plugin's in-memory store
 * each process would allow the whole limit on its own.
 *
 * The plugin's store interface (node_modules/@fastify/rate-limit/index.js,
 * store/LocalStore.js, store/RedisStore.js):
 * - the plugin calls `new Store(globalOptions)` once per registration;
 * - `incr(key, callback, timeWindow, max)` counts one request and calls
 *   `callback(null, { current, ttl })` (ttl: milliseconds left in the window)
 *   or `callback(error)`;
 * - `child(routeOptions)` gives the store of a route with its own options
 *   (also called by `createRateLimit`, with an empty `routeInfo`).
 *
 * One statement per request: an upsert that starts a new window when the
 * stored one has ended and counts on otherwise, with "now" from the DATABASE
 * clock, so processes on machines whose clocks differ agree on every window.
 * Fixed windows, like the plugin's LocalStore and RedisStore without
 * continueExceeding or exponentialBackoff (which this store refuses rather than
 * ignores). Keys arrive already hashed by the caller (services/rate-limits.ts):
 * never a raw API key.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { SqlDatabase } from './sql.js';

/** The advisory lock taken while the table of windows is made ('tkrlim'). */
const RATE_LIMIT_TABLE_LOCK_KEY = 0x746b726c696d;

/**
 * The table of windows. Outside POSTGRES_MIGRATIONS: it is the rate limiter's scratch state, not issuer data, and
 * has no SQLite twin. UNLOGGED: its updates write no WAL, so counting a request costs no durable commit (measured:
 * one of the two WAL flushes per check-in). A crash of the PostgreSQL server empties it, which only starts every
 * scanner on a fresh window.
 */
export async function ensureRateLimitTable(db: SqlDatabase): Promise<void> {
  requirePostgres(db);
  // Two serve processes starting at once would collide in PostgreSQL's catalog (IF NOT EXISTS does not hold under
  // concurrency: "type rate_limit_windows already exists", and the second process exited): a transaction lock of its
  // own makes the second wait, then find the table.
  await db.write(async (tx) => {
    await tx.get(`SELECT pg_advisory_xact_lock(${RATE_LIMIT_TABLE_LOCK_KEY}) AS locked`);
    await tx.run(
      'CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_windows (key TEXT COLLATE "C" PRIMARY KEY, window_start BIGINT NOT NULL, count INTEGER NOT NULL)',
    );
  });
}

/** Milliseconds since the epoch on the database's clock; now() is the statement's start, the same in every part of it. */
const DB_NOW_MS = '(floor(extract(epoch FROM now()) * 1000))::bigint';

const INCREMENT = `
  INSERT INTO rate_limit_windows AS w (key, window_start, count)
  VALUES (@key, ${DB_NOW_MS}, 1)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN w.window_start + @window <= EXCLUDED.window_start THEN 1 ELSE w.count + 1 END,
    window_start = CASE WHEN w.window_start + @window <= EXCLUDED.window_start THEN EXCLUDED.window_start ELSE w.window_start END
  RETURNING count, window_start, ${DB_NOW_MS} AS now_ms`;

/**
 * Rows whose window ended: the table keeps no window length per row, so a row counts as ended once it is older
 * than the longest window this process has used, and never younger than an hour. The floor keeps a process that
 * has so far only served a short window from deleting the live rows of a longer one (up to an hour) that another
 * route or process counts in.
 */
const DELETE_ENDED = `DELETE FROM rate_limit_windows WHERE window_start + @age <= ${DB_NOW_MS}`;
const CLEANUP_MIN_AGE_MS = 3_600_000;

/**
 * At most one clean-up per minute per store: cheap (the table holds only the keys of the last hour or so), and
 * the first request of a process clears what stopped processes left behind.
 */
const CLEANUP_INTERVAL_MS = 60_000;

interface RateLimitResult {
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

type RateLimitCallback = (error: Error | null, result?: RateLimitResult) => void;

/**
 * What the plugin passes to the constructor and to child(), as far as this store reads it. The plugin's typings
 * say child() gets the route's options; at run time it gets the merged limit options with the route under
 * `routeInfo` (index.js mergeParams), which is what RedisStore reads too.
 */
interface StoreOptions {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
  routeInfo?: { method?: string | string[]; url?: string };
}

/** Shared by a store and its children: one clean-up schedule per store class. */
interface Shared {
  db: SqlDatabase;
  lastCleanupMs: number;
  longestWindowMs: number;
  cleaning: boolean;
}

/**
 * The store class to pass as `store` to @fastify/rate-limit, bound to `db`
 * (from openPostgresDatabase; call ensureRateLimitTable first). Every
 * registration on every process that uses the same database shares the
 * counts of equal keys.
 */
export function postgresRateLimitStore(db: SqlDatabase): FastifyRateLimitStoreCtor {
  requirePostgres(db);
  const shared: Shared = { db, lastCleanupMs: 0, longestWindowMs: 0, cleaning: false };

  class Store implements FastifyRateLimitStore {
    private readonly prefix: string;

    constructor(options: object, prefix = '') {
      refuseUnsupported(options as StoreOptions);
      this.prefix = prefix;
    }

    // `_max` unused: a fixed window counts every request, over the limit too; the plugin compares current with max.
    incr(key: string, callback: RateLimitCallback, timeWindow?: number, _max?: number): void {
      if (typeof timeWindow !== 'number' || !Number.isFinite(timeWindow) || timeWindow <= 0) {
        callback(new Error(`the rate-limit store needs a positive time window in milliseconds, got ${String(timeWindow)}`));
        return;
      }
      const window = Math.trunc(timeWindow);
      shared.db.read
        .get<{ count: number; window_start: number; now_ms: number }>(INCREMENT, { key: this.prefix + key, window })
        // Two handlers, not then().catch(): the callback must be called once, even if it threw.
        .then(
          (row) => {
            if (row === undefined) return callback(new Error('the rate-limit upsert returned no row'));
            // At least 1 ms: a window that ends this very millisecond has not ended yet for this request.
            callback(null, { current: row.count, ttl: Math.max(1, row.window_start + window - row.now_ms) });
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      cleanUpNowAndThen(shared, window);
    }

    /**
     * A route's own store: its keys get the route's method and URL in front, as RedisStore does, so that two
     * routes with their own limits count apart. createRateLimit passes no route: its keys are the caller's own.
     */
    child(routeOptions: object): FastifyRateLimitStore {
      const route = (routeOptions as StoreOptions).routeInfo;
      const method = Array.isArray(route?.method) ? route.method.join(',') : route?.method;
      const routePrefix = route?.url !== undefined ? `${method ?? ''}${route.url}-` : '';
      return new Store(routeOptions, this.prefix + routePrefix);
    }
  }

  return Store;
}

/** services/failed-authentications.ts's FailureCounter, spelled out here: store/ does not import services/. */
export interface SharedFailureCounter {
  attempt(key: string): Promise<{ wait: number; passed(): Promise<void> }>;
}

/**
 * One attempt counted, as INCREMENT, but never beyond @limit + 1: a count of @limit + 1 means "@limit counted and
 * some refused" (refused attempts are no failures: they reached no credential check), so that TAKE_BACK can
 * find the true count again.
 */
const ATTEMPT = `
  INSERT INTO rate_limit_windows AS w (key, window_start, count)
  VALUES (@key, ${DB_NOW_MS}, 1)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN w.window_start + @window <= EXCLUDED.window_start THEN 1 ELSE LEAST(w.count + 1, @limit + 1) END,
    window_start = CASE WHEN w.window_start + @window <= EXCLUDED.window_start THEN EXCLUDED.window_start ELSE w.window_start END
  RETURNING count, window_start, ${DB_NOW_MS} AS now_ms`;

/** Takes back one counted attempt of the window that starts at @start (a window since ended is left alone). */
const TAKE_BACK = 'UPDATE rate_limit_windows SET count = LEAST(count, @limit) - 1 WHERE key = @key AND window_start = @start AND count > 0';

/**
 * Failed authentications counted in the same table, so every serving process sees one count per address
 * (services/failed-authentications.ts, docs/issuer.md "Failed authentications"). An attempt is counted by the
 * one upsert that also returns the count, on the database's clock: check and count are one atomic statement,
 * so parallel attempts on any number of processes get no more than `limit` past it per window. An attempt
 * whose credential passed is taken back. The rows are cleaned up with the rest.
 */
export function postgresFailureCounter(db: SqlDatabase, limit: number, windowMs: number): SharedFailureCounter {
  requirePostgres(db);
  const shared: Shared = { db, lastCleanupMs: 0, longestWindowMs: 0, cleaning: false };
  return {
    async attempt(key) {
      const row = await db.read.get<{ count: number; window_start: string | number; now_ms: string | number }>(ATTEMPT, {
        key: `failures:${key}`,
        window: windowMs,
        limit,
      });
      cleanUpNowAndThen(shared, windowMs);
      if (row === undefined) throw new Error('the rate-limit upsert returned no row');
      const start = Number(row.window_start);
      if (Number(row.count) > limit) {
        return { wait: Math.max(1, start + windowMs - Number(row.now_ms)), passed: () => Promise.resolve() };
      }
      return {
        wait: 0,
        passed: async () => {
          await db.read.run(TAKE_BACK, { key: `failures:${key}`, start, limit });
        },
      };
    },
  };
}

function cleanUpNowAndThen(shared: Shared, windowMs: number): void {
  shared.longestWindowMs = Math.max(shared.longestWindowMs, windowMs);
  const now = Date.now();
  if (shared.cleaning || now - shared.lastCleanupMs < CLEANUP_INTERVAL_MS) return;
  shared.cleaning = true;
  shared.lastCleanupMs = now;
  // In the background: a failed clean-up costs nothing but a larger table until the next one.
  shared.db.read
    .run(DELETE_ENDED, { age: Math.max(shared.longestWindowMs, CLEANUP_MIN_AGE_MS) })
    .catch(() => undefined)
    .finally(() => (shared.cleaning = false));
}

function refuseUnsupported(options: StoreOptions): void {
  if (options.continueExceeding === true || options.exponentialBackoff === true) {
    throw new Error('the PostgreSQL rate-limit store counts fixed windows: continueExceeding and exponentialBackoff are not supported');
  }
}

function requirePostgres(db: SqlDatabase): void {
  if (db.dialect !== 'postgres') throw new Error('the PostgreSQL rate-limit store needs a PostgreSQL database');
}

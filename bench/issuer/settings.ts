/**
 * The issuer benchmark's command line (bench/issuer-bench.ts lists the options): what to run, on which store, with
 * how many serve processes, and each process's PostgreSQL pool, checked against the throwaway cluster's limit.
 */
import os from 'node:os';
import { numberOption, textOption } from '../bench-kit.js';

/** The most `serve` processes one run starts. */
const MAX_PROCESSES = 16;

export type Store = 'sqlite' | 'postgres';

/**
 * The throwaway cluster's connection limit. PostgreSQL keeps
 * superuser_reserved_connections (3) of it for superusers, and the cluster's
 * user is one, but the budget below leaves them alone anyway.
 */
export const POSTGRES_MAX_CONNECTIONS = 200;
/** poolSizeFor's default: connections per core of the database's machine, and the least per process. */
const CONNECTIONS_PER_CORE = 8;
const MIN_POOL_PER_PROCESS = 4;
/** Connections the benchmark process itself may hold at once (its own pool while counting check-ins), plus a margin. */
const BENCH_OWN_CONNECTIONS = 10;

export interface Settings {
  store: Store;
  /** `--db-pool`: PostgreSQL connections per serve process; undefined = poolSizeFor's choice. */
  dbPool: number | undefined;
  tickets: number;
  seconds: number;
  concurrency: number;
  scanners: number;
  /** One (b) run per entry: how many issuer processes share the data dir. */
  processes: number[];
  /** N = 1 as a `serve` child process too, instead of today's worker thread. */
  childProcesses: boolean;
  /** `--sqlite-thread off`: SQLite writes on the server's own thread, as before the database thread (for comparison). */
  sqliteThread: boolean;
  /** (f) `--occupancy-tickets N`: check-ins (and N/2 exits) in the store before occupancy reads are timed; 0 skips (f). */
  occupancyTickets: number;
  /** (h) `--export-tickets N`: tickets `ticket export --format pdf` writes (and a run with N/10); 0 skips (h). */
  exportTickets: number;
  /** `--checks`: (b) with the ticket type's attention note and ID check set ('on'), without ('off'), or both. */
  checks: 'off' | 'on' | 'both';
}

export function settingsFrom(argv: readonly string[], store: Store): Settings {
  const value = (flag: string, fallback: number): number => numberOption(argv, flag, fallback);
  const processes = processCounts(textOption(argv, '--processes', '1'));
  return {
    store,
    dbPool: argv.includes('--db-pool') ? numberOption(argv, '--db-pool', 10, { max: 1000 }) : undefined,
    tickets: value('--tickets', 250_000 * processes.length),
    seconds: value('--seconds', 8),
    concurrency: value('--concurrency', 50),
    scanners: value('--scanners', 50),
    processes,
    childProcesses: argv.includes('--child-processes'),
    sqliteThread: textOption(argv, '--sqlite-thread', 'on') !== 'off',
    occupancyTickets: numberOption(argv, '--occupancy-tickets', 100_000, { min: 0 }),
    exportTickets: numberOption(argv, '--export-tickets', 20_000, { min: 0 }),
    checks: checksOption(textOption(argv, '--checks', 'off') ?? 'off'),
  };
}

function checksOption(value: string): 'off' | 'on' | 'both' {
  if (value !== 'off' && value !== 'on' && value !== 'both') throw new Error(`--checks must be off, on or both, not "${value}"`);
  return value;
}

/** "1,2,4" → [1, 2, 4]. */
function processCounts(text: string | undefined): number[] {
  const counts = (text ?? '').split(',').map((part) => Number(part.trim()));
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_PROCESSES)) {
    throw new Error(`--processes needs a whole number from 1 to ${MAX_PROCESSES}, or a comma-separated list of them (1,2,4)`);
  }
  return counts;
}

/** `--store sqlite|postgres` (default sqlite); anything else exits 2. */
export function storeFrom(argv: readonly string[]): Store {
  const store = textOption(argv, '--store', 'sqlite');
  if (store === 'sqlite' || store === 'postgres') return store;
  console.error(`--store needs sqlite or postgres (got ${store ?? 'nothing'})`);
  process.exit(2);
}

/**
 * `serve --db-pool` for each of N processes: 8 connections per core of the
 * database's machine (this one: the cluster runs here), shared out over the
 * N processes, at least 4 each (16 for one process, 8 each for two, 4 each
 * for four on 2 cores). A check-in holds its connection through about ten
 * round trips and its backend spends most of that waiting for Node
 * (pg_stat_activity: ClientRead), so a few connections per core keep the
 * cores busy; more only add backends competing for the same cores. Measured
 * on 2026-11-26 with one process: pool 8 and pool 52 both gave ~1,125
 * check-ins/s, pool 52 with more PostgreSQL CPU and a worse p99. The total,
 * N × pool plus the benchmark's own, must stay under the cluster's
 * max_connections (200), or PostgreSQL refuses connections ("too many
 * clients") mid-run: checked here for every N, also for `--db-pool P`.
 */
export function poolSizeFor(processes: number, settings: Settings): number {
  const pool = settings.dbPool ?? Math.max(MIN_POOL_PER_PROCESS, Math.ceil((CONNECTIONS_PER_CORE * os.cpus().length) / processes));
  const total = processes * pool + BENCH_OWN_CONNECTIONS;
  if (total >= POSTGRES_MAX_CONNECTIONS) {
    throw new Error(
      `${processes} serve processes × --db-pool ${pool} (+${BENCH_OWN_CONNECTIONS} for the benchmark) = ${total} connections: over the cluster's max_connections ${POSTGRES_MAX_CONNECTIONS}; lower --db-pool or --concurrency`,
    );
  }
  return pool;
}

/**
 * The issuer benchmark (`npm run bench:issuer`). One run, on loopback, plain HTTP:
 *  (a) a bare Fastify JSON route — the ceiling for this machine and HTTP stack;
 *  (b) the real issuer (issuer/server.ts): check-ins from 50 concurrent
 *      scanners, each a first check-in of a fresh ticket, committed durably
 *      (synchronous=FULL, group commit): throughput, p50/p99 and (b)/(a) at
 *      saturation, then p50/p99 with the scanners offering half that rate
 *      (at saturation latency is mostly queueing: p50 ≈ 50 / throughput),
 *      evenly spaced and again in bursts (each scanner's share of a second
 *      sent back to back from its start, as autocannon's overallRate does),
 *      and the bare route again at that rate. Latency is given twice: as the
 *      load generator saw it and as the server thread did (request arrival to
 *      response written), since both share this machine's cores;
 *  (c) bulk issuance: tickets signed and stored per second (issuer/admin/issuance.ts).
 * Goals: (b) ≥ 1/3 of (a) with p99 < 10 ms; (c) ≥ 20,000 tickets/s.
 * Each server runs in its own worker thread so the load generator does not
 * share its event loop. A benchmark, not a test: it prints figures.
 *
 * `--processes N`: (b) against N real `ticket-issuer serve` child
 * processes (`--plain-http` on loopback, `--scanner-rpm` lifted) sharing ONE
 * data dir and SQLite file, the load generator's connections spread over them
 * round-robin. N = 1 keeps today's worker thread (the documented figures stay
 * comparable) unless `--child-processes` is given. A list (`--processes 1,2,4`)
 * runs (b) once per N, on the same data dir with fresh tickets each time, and
 * prints one line per N. After each N: stored check-ins = `valid` answers, and
 * a race (every ticket sent to all processes at once) gives one `valid` per ticket.
 *
 * `--store postgres`: the same run on a throwaway PostgreSQL cluster
 * (test/support/postgres-cluster.ts: fsync and synchronous_commit on, never
 * off here), started first and stopped at the end, after an error and on
 * SIGINT/SIGTERM too. The issuer data dir is made with `init --database` on it
 * ((c) is bulk issuance into PostgreSQL), and every N of (b) runs as N `serve`
 * child processes, each on a serving node dir of its own (node-config), also
 * N = 1 (so the 1 → 2 → 4 line compares like with like), with `--db-pool`
 * (see poolSizeFor). The headline rows of the first table are the N = 2 run
 * when there is one (the goal is stated for two processes), else the first N.
 *
 * Options: --store sqlite|postgres (sqlite) --processes N[,N…] (1) --child-processes
 *   --db-pool P (postgres only: connections per serve process; default from poolSizeFor)
 *   --tickets N (250000 per entry of --processes: one saturated and two half-rate runs of 8 s at ~12,000 check-ins/s fit) --seconds S per load run (8)
 *   --concurrency C (50) --scanners K (50)
 *   --occupancy-tickets N (100000; 0 skips (f))
 *
 * `--checks off|on|both` (off): the ticket type's attention flag and note and its ID check (age:18) set, or not,
 * during (b) (docs/protocol.md "Attention notes (project extension)", "ID checks (project extension)"): `both` runs
 * (b) without them and then with them, per N, on the same data dir and machine, and prints the ratio of the two;
 * then (j), the same in process with the two sides alternating round by round (bench/checks-cost.ts).
 *
 * (f): what reading live occupancy costs with N check-ins and N/2 exits in the store
 * (bench/occupancy-cost.ts). Goal: under 1 ms.
 */
import crypto from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import Fastify from 'fastify';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import { writeNodeConfig } from '../issuer/admin/node-config.js';
import { openIssuer } from '../issuer/admin/issuer-context.js';
import { resolveDataDir, withLocation, type DataDir } from '../issuer/data-dir.js';
import { createLogger } from '../issuer/logging.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openDatabase } from '../issuer/store/database.js';
import { openIssuerDatabase } from '../issuer/store/open.js';
import { ensureRateLimitTable, postgresRateLimitStore } from '../issuer/store/postgres-rate-limit.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import type { EventRow } from '../issuer/store/events.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { setTicketTypeAttention } from '../issuer/services/attention-notes.js';
import { setTypeIdCheck } from '../issuer/store/id-checks.js';
import { parseIdCheck } from '../protocol/id-check.js';
import { freePort } from '../test/support/free-port.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { clusterCpuSeconds } from './cluster-cpu.js';
import { createBenchScanners as createScanners, type BenchScanner as Scanner } from './bench-scanners.js';
import { numberOption, percentiles, textOption } from './bench-kit.js';
import { measureChainCost, printChainCost } from './chain-cost.js';
import { measureChecksCost } from './checks-cost.js';
import { measureOccupancyCost } from './occupancy-cost.js';
import { measureTicketExport } from './ticket-export-cost.js';
import { runLoad, type LoadResult } from './http-load.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

/**
 * The check-in's share of the bare route's throughput (docs/benchmarks.md): one process on SQLite at least half;
 * PostgreSQL, judged on the headline run (N = 2 there), at least a third.
 */
const RATIO_GOAL: Record<Store, { value: number; label: string }> = {
  sqlite: { value: 1 / 2, label: '0.5' },
  postgres: { value: 1 / 3, label: '0.33' },
};

type ServerRole = { role: 'bare' } | { role: 'issuer'; dataDir: string; sqliteThread: boolean };

const CHECK_IN_PATH = '/api/v1/tickets/check-in';
const WARM_UP_REQUESTS = 2_000;

/** serve's ceiling for --scanner-rpm, as the crash benchmark uses: far above what one process answers. */
const UNLIMITED_RPM = 1_000_000;
/** Tickets each raced by all N processes at once in the correctness check. */
const RACED_TICKETS = 200;
const MAX_PROCESSES = 16;

type Store = 'sqlite' | 'postgres';

/**
 * The throwaway cluster's connection limit. PostgreSQL keeps
 * superuser_reserved_connections (3) of it for superusers, and the cluster's
 * user is one, but the budget below leaves them alone anyway.
 */
const POSTGRES_MAX_CONNECTIONS = 200;
/** poolSizeFor's default: connections per core of the database's machine, and the least per process. */
const CONNECTIONS_PER_CORE = 8;
const MIN_POOL_PER_PROCESS = 4;
/** Connections the benchmark process itself may hold at once (its own pool while counting check-ins), plus a margin. */
const BENCH_OWN_CONNECTIONS = 10;

interface Settings {
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

function settingsFrom(argv: readonly string[], store: Store): Settings {
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

/**
 * Sets (or removes) the benchmark type's attention flag and note and its ID check, as `event ticket-type set`
 * does: what a check-in then reads with its facts (the type's rule, the ID-check join) and answers.
 */
async function setNewChecks(dataDir: DataDir, eid: string, on: boolean): Promise<void> {
  const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is' });
  try {
    const now = new Date().toISOString();
    await database.write(async (tx) => {
      await setTicketTypeAttention(
        tx,
        eid,
        'Standard',
        on ? { attention: true, note: 'Green wristband' } : { attention: false, note: null },
        now,
      );
      await setTypeIdCheck(tx, eid, 'Standard', parseIdCheck(on ? 'age:18' : 'none')!, now);
    });
  } finally {
    await database.close();
  }
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
function storeFrom(argv: readonly string[]): Store {
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
function poolSizeFor(processes: number, settings: Settings): number {
  const pool = settings.dbPool ?? Math.max(MIN_POOL_PER_PROCESS, Math.ceil((CONNECTIONS_PER_CORE * os.cpus().length) / processes));
  const total = processes * pool + BENCH_OWN_CONNECTIONS;
  if (total >= POSTGRES_MAX_CONNECTIONS) {
    throw new Error(
      `${processes} serve processes × --db-pool ${pool} (+${BENCH_OWN_CONNECTIONS} for the benchmark) = ${total} connections: over the cluster's max_connections ${POSTGRES_MAX_CONNECTIONS}; lower --db-pool or --concurrency`,
    );
  }
  return pool;
}

// ---------------------------------------------------------------- server threads

async function serveInThisWorker(role: ServerRole): Promise<void> {
  let url: string;
  let close: () => Promise<void>;
  if (role.role === 'bare') {
    const app = Fastify({ logger: false });
    app.post(CHECK_IN_PATH, async (request) => {
      const body = request.body as { tid: string; eid: string; scanned_at: string };
      return { status: 'valid', ticket: { tid: body.tid, eid: body.eid, checked_in_at: body.scanned_at } };
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    close = () => app.close();
  } else {
    const { startServer } = await import('../issuer/server.js');
    // Request logging off (warnings only), as for the bare route: the figures compare request handling.
    const server = await startServer({
      dataDir: role.dataDir,
      host: '127.0.0.1',
      port: 0,
      plainHttp: true,
      scannerRpm: 100_000_000,
      handleSignals: false,
      logger: createLogger({ level: 'warn' }),
      sqliteThread: role.sqliteThread,
    });
    url = server.url;
    close = () => server.close();
  }
  const timings = serverSideTimings();
  parentPort!.on('message', (command: ServerCommand) => {
    if (command === 'reset') timings.length = 0;
    else if (command === 'report') parentPort!.postMessage(summarise(timings));
    else void close().then(() => parentPort!.postMessage('closed'));
  });
  parentPort!.postMessage(url);
}

/**
 * Server-side latency: from the request's arrival at Node's HTTP server to
 * its response being handed to the socket, taken in the server's own thread.
 * Beside the load generator's figure it shows how much of a tail is the
 * server and how much is the two threads sharing this machine's cores.
 */
function serverSideTimings(): number[] {
  const timings: number[] = [];
  const startedAt = new WeakMap<object, number>();
  diagnosticsChannel.subscribe('http.server.request.start', (message) =>
    startedAt.set((message as { response: object }).response, performance.now()),
  );
  diagnosticsChannel.subscribe('http.server.response.finish', (message) => {
    const started = startedAt.get((message as { response: object }).response);
    if (started !== undefined) timings.push(performance.now() - started);
  });
  return timings;
}

type ServerCommand = 'reset' | 'report' | 'close';

interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
}

function summarise(timings: number[]): LatencySummary {
  const { p50, p99 } = percentiles(timings);
  return { p50Ms: p50, p99Ms: p99 };
}

interface ServerThread {
  url: string;
  /** Forgets the server-side timings taken so far (before a measured run). */
  resetTimings(): void;
  /** Server-side p50/p99 since the last reset. */
  serverLatency(): Promise<LatencySummary>;
  stop(): Promise<void>;
}

function startServerThread(role: ServerRole): Promise<ServerThread> {
  const worker = new Worker(new URL(import.meta.url), { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (url: string) =>
      resolve({
        url,
        resetTimings: () => worker.postMessage('reset' satisfies ServerCommand),
        serverLatency: () =>
          new Promise<LatencySummary>((done) => {
            worker.once('message', done);
            worker.postMessage('report' satisfies ServerCommand);
          }),
        stop: () =>
          new Promise<void>((done) => {
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('close' satisfies ServerCommand);
          }),
      }),
    );
  });
}

/** The issuer under test in (b): one worker thread (today's N = 1) or N `serve` child processes on one data dir. */
interface IssuerFleet {
  /** How it runs, for the printed line. */
  kind: string;
  urls: string[];
  resetTimings(): void;
  /** Server-side p50/p99 since the last reset; undefined for child processes (not taken there). */
  serverLatency(): Promise<LatencySummary | undefined>;
  stop(): Promise<void>;
}

/** Where (b)'s issuers run: the data dir every process shares (SQLite), or one node dir per process (PostgreSQL). */
interface FleetTarget {
  /** SQLite: the issuer's data dir, shared by every process and by the worker thread. */
  dataDir: string;
  /** PostgreSQL: serving node dirs (node-config), process i on nodeDirs[i]; always child processes. */
  nodeDirs?: readonly string[];
  /** Extra `serve` arguments for every process (PostgreSQL: `--db-pool P`). */
  serveArgs?: readonly string[];
}

/** Fleets started and not yet stopped: stopped on error and on SIGINT/SIGTERM before the cluster goes. */
const liveFleets = new Set<IssuerFleet>();

async function startIssuerFleet(
  processes: number,
  target: FleetTarget,
  logDir: string,
  childProcesses: boolean,
  sqliteThread = true,
): Promise<IssuerFleet> {
  if (processes === 1 && !childProcesses && target.nodeDirs === undefined) {
    const thread = await startServerThread({ role: 'issuer', dataDir: target.dataDir, sqliteThread });
    const fleet: IssuerFleet = {
      kind: 'worker thread',
      urls: [thread.url],
      ...thread,
      stop: async () => {
        liveFleets.delete(fleet);
        await thread.stop();
      },
    };
    liveFleets.add(fleet);
    return fleet;
  }
  const started: ServeProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const serve of started) serve.process.kill('SIGTERM');
    await Promise.all(started.map((serve) => serve.exited));
  };
  try {
    for (let i = 0; i < processes; i++) {
      const logFile = path.join(logDir, `serve-${processes}-${i}.log`);
      const dir = target.nodeDirs === undefined ? target.dataDir : target.nodeDirs[i]!;
      const args = ['--scanner-rpm', String(UNLIMITED_RPM), ...(target.serveArgs ?? [])];
      started.push(await startServeProcess(dir, await freePort(), args, { logFile }));
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  const fleet: IssuerFleet = {
    kind: `${processes} serve process${processes === 1 ? '' : 'es'}`,
    urls: started.map((serve) => serve.url),
    resetTimings: () => {},
    serverLatency: () => Promise.resolve(undefined),
    stop: async () => {
      liveFleets.delete(fleet);
      await stopAll();
    },
  };
  liveFleets.add(fleet);
  return fleet;
}

// ---------------------------------------------------------------- fixtures

// ---------------------------------------------------------------- measurements

function checkInLoad(
  url: string | readonly string[],
  settings: Settings,
  event: EventRow,
  tids: readonly string[],
  scanners: readonly Scanner[],
  maxMs: number,
  ratePerSecond?: number,
  bursts = false,
) {
  return runLoad({
    url,
    ...(ratePerSecond === undefined ? {} : { ratePerSecond, bursts }),
    concurrency: settings.concurrency,
    maxRequests: tids.length,
    maxMs,
    request: (i, client) => {
      const scanner = scanners[client % scanners.length]!;
      return {
        path: CHECK_IN_PATH,
        headers: { authorization: `Bearer ${scanner.apiKey}` },
        body: checkInBody(tids[i]!, event, scanner),
      };
    },
    outcome: (status, body) =>
      `${status} ${(JSON.parse(body) as { status?: string; error?: { code: string } }).status ?? (JSON.parse(body) as { error?: { code: string } }).error?.code}`,
  });
}

function checkInBody(tid: string, event: EventRow, scanner: Scanner): string {
  return JSON.stringify({
    tid,
    eid: event.eid,
    scanned_at: new Date().toISOString(),
    scanner_id: scanner.scannerId,
    idempotency_key: crypto.randomUUID(),
  });
}

interface RaceResult {
  tickets: number;
  requests: number;
  /** Tickets that got exactly one `valid` (the rest of their answers `already_used`). */
  exactlyOnce: number;
  valid: number;
  outcomes: Map<string, number>;
}

/**
 * Every ticket sent to all the servers at the same moment (at least twice,
 * so one server races itself), each copy from another scanner with its own
 * idempotency key: exactly one copy may be `valid`.
 */
async function raceCheckIns(
  urls: readonly string[],
  event: EventRow,
  tids: readonly string[],
  scanners: readonly Scanner[],
): Promise<RaceResult> {
  const copies = Math.max(2, urls.length);
  const outcomes = new Map<string, number>();
  let exactlyOnce = 0;
  let valid = 0;
  for (const tid of tids) {
    const answers = await Promise.all(
      Array.from({ length: copies }, async (_, copy) => {
        const scanner = scanners[copy % scanners.length]!;
        const response = await fetch(`${urls[copy % urls.length]!}${CHECK_IN_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
          body: checkInBody(tid, event, scanner),
        });
        const body = (await response.json()) as { status?: string; error?: { code: string } };
        return `${response.status} ${body.status ?? body.error?.code}`;
      }),
    );
    for (const label of answers) outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
    const valids = answers.filter((label) => label === '200 valid').length;
    valid += valids;
    if (valids === 1 && answers.every((label) => label === '200 valid' || label === '200 already_used')) exactlyOnce++;
  }
  return { tickets: tids.length, requests: tids.length * copies, exactlyOnce, valid, outcomes };
}

/** Check-ins stored so far: COUNT(*) of `checkins`, from the SQLite file as before, or through openIssuerDatabase on PostgreSQL. */
async function storedCheckIns(dataDir: DataDir): Promise<number> {
  if (dataDir.postgres === undefined) {
    const db = openDatabase(dataDir.database);
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 1 });
  try {
    return (await database.read.get<{ n: number }>('SELECT COUNT(*) AS n FROM checkins'))!.n;
  } finally {
    await database.close();
  }
}

const validAnswers = (result: LoadResult): number => result.outcomes.get('200 valid') ?? 0;

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const tallyMap = (outcomes: Map<string, number>): string => [...outcomes].map(([label, count]) => `${fmt(count)}× ${label}`).join(', ');
const tally = (result: LoadResult): string => tallyMap(result.outcomes);

interface ProcessRun {
  processes: number;
  /** The type's attention note and ID check were set during this run (--checks). */
  checks: boolean;
  kind: string;
  checkIn: LoadResult;
  checkInServerSide: LatencySummary | undefined;
  pacedRate: number;
  paced: LoadResult;
  pacedServerSide: LatencySummary | undefined;
  /** The same rate offered in bursts (http-load.ts `bursts`, autocannon's overallRate). */
  bursty: LoadResult;
  burstyServerSide: LatencySummary | undefined;
  race: RaceResult;
  /** Check-ins stored during this run, and `valid` answers sent during it (warm-up, both loads, race). */
  stored: number;
  valid: number;
  ranOutOfTickets: boolean;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const store = storeFrom(argv);
  const settings = settingsFrom(argv, store);
  if (store === 'sqlite') {
    await runBenchmark(settings, undefined);
    return;
  }
  // PostgreSQL: a throwaway cluster, stopped in every case: after the run, after an error, on SIGINT/SIGTERM.
  // The serve processes go first (the cluster's immediate shutdown would otherwise leave them failing requests).
  let cluster: PostgresCluster | undefined;
  let stopping: Promise<void> | undefined;
  const teardown = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.allSettled([...liveFleets].map((fleet) => fleet.stop()));
      await cluster?.stop();
    })());
  const onSignal = (signal: NodeJS.Signals): void => {
    console.error(`${signal}: stopping the serve processes and the PostgreSQL cluster…`);
    void teardown().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    console.error('starting a throwaway PostgreSQL cluster (fsync on, synchronous_commit on)…');
    cluster = await startPostgresCluster({ settings: { max_connections: String(POSTGRES_MAX_CONNECTIONS) } });
    await runBenchmark(settings, cluster);
  } finally {
    await teardown();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** The server's durability settings, printed with the figures so a run with them off could not pass unnoticed. */
async function postgresSettings(database: SqlDatabase): Promise<string> {
  const show = async (name: string): Promise<string> =>
    Object.values((await database.read.get<Record<string, string>>(`SHOW ${name}`)) ?? {})[0] ?? '?';
  const version = await show('server_version');
  return `PostgreSQL ${version}, fsync=${await show('fsync')}, synchronous_commit=${await show('synchronous_commit')}, wal_sync_method=${await show('wal_sync_method')}, max_connections=${await show('max_connections')}`;
}

async function runBenchmark(settings: Settings, cluster: PostgresCluster | undefined): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'issuer-bench-'));
  const layout = resolveDataDir(path.join(root, 'issuer-data'));
  // PostgreSQL: as `init --database URL` does (issuer/cli/init-command.ts), recorded in the data dir's database.json.
  const dataDir = cluster === undefined ? layout : withLocation(layout, { postgres: cluster.url }, 'record');
  const now = new Date();
  console.error(
    `issuer benchmark: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${dataDir.root}${cluster === undefined ? '' : `, database ${cluster.url}`}`,
  );

  // (c) bulk issuance into the data dir (c) and (b) share.
  await initIssuer(dataDir, 'http://127.0.0.1:8443', 'Benchmark Issuer', now);
  const db: SqlDatabase = cluster === undefined ? openSqliteDatabase(dataDir.database) : (await openIssuerDatabase(dataDir)).database;
  let event: EventRow;
  let tids: string[];
  let issueSeconds: number;
  let scanners: Scanner[];
  try {
    if (cluster !== undefined) console.error(await postgresSettings(db));
    event = await createEvent(db, { name: 'Benchmark Night', date: addHours(now, 1), venue: 'Loopback Hall' }, newIdFactory(), now);
    const key = loadSigningKey(dataDir.keysDir, await activeKid(db.read));
    console.error(`(c) issuing ${fmt(settings.tickets)} tickets…`);
    const specs = Array.from({ length: settings.tickets }, (_, i) => ({
      exp: defaultTicketExpiry(event),
      holderName: `Guest ${i}`,
      ticketType: 'Standard',
    }));
    const issueStart = performance.now();
    const issued = await issueTickets(db, { iss: 'http://127.0.0.1:8443', event, key, nextId: newIdFactory(), now }, specs);
    issueSeconds = (performance.now() - issueStart) / 1000;
    tids = issued.map((ticket) => ticket.tid);
    scanners = await createScanners(db, event, settings.scanners, now);
  } finally {
    await db.close();
  }

  // PostgreSQL: one serving node dir per process (node-config), as a deployment of several serve processes has.
  const nodeDirs: string[] = [];
  if (cluster !== undefined) {
    const context = await openIssuer(dataDir.root);
    try {
      for (let i = 0; i < Math.max(...settings.processes); i++) {
        nodeDirs.push((await writeNodeConfig(context, path.join(root, `node-${i}`), now)).node);
      }
    } finally {
      await context.database.close();
    }
  }
  const fleetTarget = (processes: number): FleetTarget =>
    cluster === undefined
      ? { dataDir: dataDir.root }
      : { dataDir: dataDir.root, nodeDirs, serveArgs: ['--db-pool', String(poolSizeFor(processes, settings))] };

  const maxMs = settings.seconds * 1000;
  // docs/benchmarks.md "PostgreSQL (bench:issuer --store postgres)": the cluster's CPU per check-in.
  const databaseCpu = (): number | undefined => (cluster === undefined ? undefined : clusterCpuSeconds(cluster.dir));
  const printDatabaseCpu = (what: string, before: number | undefined, requests: number): void => {
    const after = databaseCpu();
    if (before === undefined || after === undefined || requests === 0) return;
    const seconds = after - before;
    console.error(
      `(b) ${what}: PostgreSQL used ${seconds.toFixed(2)} CPU-s for ${fmt(requests)} check-ins: ${((seconds * 1000) / requests).toFixed(3)} ms of database CPU per check-in`,
    );
  };
  console.error('(a) bare Fastify JSON route…');
  const bareServer = await startServerThread({ role: 'bare' });
  await checkInLoad(bareServer.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  bareServer.resetTimings();
  const bare = await checkInLoad(bareServer.url, settings, event, tids, scanners, maxMs);
  const bareServerSide = await bareServer.serverLatency();
  await bareServer.stop();

  // (b) once per process count, each on fresh tickets of the same data dir: `next` is the first unused one.
  let next = 0;
  const take = (count: number): string[] => tids.slice(next, next + count);
  const runs: ProcessRun[] = [];
  const plan = settings.processes.flatMap((processes) =>
    settings.checks === 'both'
      ? [
          { processes, checks: false },
          { processes, checks: true },
        ]
      : [{ processes, checks: settings.checks === 'on' }],
  );
  let checksSet = false;
  for (const { processes, checks } of plan) {
    if (checks !== checksSet) {
      console.error(`(b) the type's attention note and ID check ${checks ? 'set' : 'removed'}…`);
      await setNewChecks(dataDir, event.eid, checks);
      checksSet = checks;
    }
    const target = fleetTarget(processes);
    const fleet = await startIssuerFleet(processes, target, root, settings.childProcesses, settings.sqliteThread);
    const writes =
      settings.store === 'sqlite' && !settings.sqliteThread ? ', SQLite writes on the server thread (--sqlite-thread off)' : '';
    const kind = (target.serveArgs === undefined ? fleet.kind : `${fleet.kind} (${target.serveArgs.join(' ')})`) + writes;
    console.error(`(b) check-in, ${settings.concurrency} concurrent scanners, durable commits, ${kind}…`);
    const storedBefore = await storedCheckIns(dataDir);
    const warmUp = await checkInLoad(fleet.urls, settings, event, take(WARM_UP_REQUESTS), scanners, maxMs);
    next += warmUp.requests;
    fleet.resetTimings();
    const saturatedTickets = take(tids.length);
    const cpuBefore = databaseCpu();
    const checkIn = await checkInLoad(fleet.urls, settings, event, saturatedTickets, scanners, maxMs);
    printDatabaseCpu('saturated', cpuBefore, checkIn.requests);
    next += checkIn.requests;
    const checkInServerSide = await fleet.serverLatency();
    const pacedRate = Math.floor(checkIn.perSecond / 2);
    console.error(`(b) again with the scanners offering ${fmt(pacedRate)} check-ins/s together…`);
    fleet.resetTimings();
    const pacedTickets = take(tids.length);
    const pacedCpuBefore = databaseCpu();
    const paced = await checkInLoad(fleet.urls, settings, event, pacedTickets, scanners, maxMs, pacedRate);
    printDatabaseCpu('half rate', pacedCpuBefore, paced.requests);
    next += paced.requests;
    const pacedServerSide = await fleet.serverLatency();
    console.error(`(b) again at ${fmt(pacedRate)} check-ins/s, in bursts (each second's share sent back to back)…`);
    fleet.resetTimings();
    const burstyTickets = take(tids.length);
    const bursty = await checkInLoad(fleet.urls, settings, event, burstyTickets, scanners, maxMs, pacedRate, true);
    next += bursty.requests;
    const burstyServerSide = await fleet.serverLatency();
    console.error(`(b) correctness: ${RACED_TICKETS} tickets each sent to every process at once…`);
    const race = await raceCheckIns(fleet.urls, event, take(RACED_TICKETS), scanners);
    next += race.tickets;
    await fleet.stop();
    runs.push({
      processes,
      checks,
      kind: checks ? `${kind}, with attention note and ID check` : kind,
      checkIn,
      checkInServerSide,
      pacedRate,
      paced,
      pacedServerSide,
      bursty,
      burstyServerSide,
      race,
      stored: (await storedCheckIns(dataDir)) - storedBefore,
      valid: validAnswers(warmUp) + validAnswers(checkIn) + validAnswers(paced) + validAnswers(bursty) + race.valid,
      ranOutOfTickets:
        checkIn.requests === saturatedTickets.length || paced.requests === pacedTickets.length || bursty.requests === burstyTickets.length,
    });
  }

  // The headline rows: the first N, but with PostgreSQL the N = 2 run when there is one (the goal names two processes).
  const first = (settings.store === 'postgres' ? runs.find((run) => run.processes === 2) : undefined) ?? runs[0]!;
  const storeLabel = settings.store === 'postgres' ? ', PostgreSQL' : '';
  console.error(`(a) again at that rate…`);
  const bareAgain = await startServerThread({ role: 'bare' });
  await checkInLoad(bareAgain.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  bareAgain.resetTimings();
  const barePaced = await checkInLoad(bareAgain.url, settings, event, tids, scanners, maxMs, first.pacedRate);
  const barePacedServerSide = await bareAgain.serverLatency();
  bareAgain.resetTimings();
  const bareBursty = await checkInLoad(bareAgain.url, settings, event, tids, scanners, maxMs, first.pacedRate, true);
  const bareBurstyServerSide = await bareAgain.serverLatency();
  await bareAgain.stop();

  const ratio = first.checkIn.perSecond / bare.perSecond;
  const issuanceRate = settings.tickets / issueSeconds;
  // Latency as the load generator saw it, then as the server thread itself saw it.
  const latency = (client: LoadResult, server: LatencySummary | undefined): string =>
    `p50 ${fmt(client.p50Ms, 2)} ms, p99 ${fmt(client.p99Ms, 2)} ms (server side: ${server === undefined ? 'not taken in child processes' : `p50 ${fmt(server.p50Ms, 2)}, p99 ${fmt(server.p99Ms, 2)}`})`;
  const firstKind = first.kind === 'worker thread' ? '' : `, ${first.kind}`;
  const rows: [string, string, string, string][] = [
    ['(a) bare Fastify JSON route', `${fmt(bare.perSecond)} req/s`, latency(bare, bareServerSide), 'baseline'],
    [
      `(b) check-in, ${settings.concurrency} scanners, durable, saturated${firstKind}${storeLabel}`,
      `${fmt(first.checkIn.perSecond)} req/s`,
      latency(first.checkIn, first.checkInServerSide),
      '',
    ],
    [
      '(b)/(a)',
      fmt(ratio, 2),
      '',
      `≥ ${RATIO_GOAL[settings.store].label}: ${ratio >= RATIO_GOAL[settings.store].value ? 'met' : 'NOT met'}`,
    ],
    [
      `(b) check-in at half that rate`,
      `${fmt(first.paced.perSecond)} req/s`,
      latency(first.paced, first.pacedServerSide),
      `p99 < 10 ms: ${first.paced.p99Ms < 10 ? 'met' : 'NOT met'}`,
    ],
    [`(a) bare route at that rate`, `${fmt(barePaced.perSecond)} req/s`, latency(barePaced, barePacedServerSide), 'baseline'],
    [
      `(b) check-in at half rate, in bursts (each second's share sent back to back, as autocannon's overallRate)`,
      `${fmt(first.bursty.perSecond)} req/s`,
      latency(first.bursty, first.burstyServerSide),
      `p99 < 10 ms: ${first.bursty.p99Ms < 10 ? 'met' : 'NOT met'}`,
    ],
    [`(a) bare route at that rate, in bursts`, `${fmt(bareBursty.perSecond)} req/s`, latency(bareBursty, bareBurstyServerSide), 'baseline'],
    [
      `(c) bulk issuance, ${fmt(settings.tickets)} tickets${storeLabel}`,
      `${fmt(issuanceRate)} tickets/s`,
      `${fmt(issueSeconds, 2)} s`,
      `≥ 20,000/s: ${issuanceRate >= 20_000 ? 'met' : 'NOT met'}`,
    ],
  ];
  console.log('| measurement | rate | latency / time | goal |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log('');
  console.log(`(a) answers: ${tally(bare)} in ${fmt(bare.elapsedMs / 1000, 1)} s`);

  console.log('');
  console.log(
    settings.store === 'postgres'
      ? `(b) by number of issuer processes on one PostgreSQL database (store: postgres, fsync and synchronous_commit on; (a) = ${fmt(bare.perSecond)} req/s):`
      : `(b) by number of issuer processes on one SQLite file (store: sqlite; (a) = ${fmt(bare.perSecond)} req/s):`,
  );
  console.log('');
  console.log(
    '| processes | runs as | check-ins/s saturated | p50 / p99 saturated | (b)/(a) | half rate | p50 / p99 at half rate | stored = valid | raced tickets valid once |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  let allCorrect = true;
  for (const run of runs) {
    const correct = run.stored === run.valid;
    const raceCorrect = run.race.exactlyOnce === run.race.tickets;
    allCorrect &&= correct && raceCorrect;
    console.log(
      `| ${[
        run.processes,
        run.kind,
        fmt(run.checkIn.perSecond),
        `${fmt(run.checkIn.p50Ms, 2)} / ${fmt(run.checkIn.p99Ms, 2)} ms`,
        fmt(run.checkIn.perSecond / bare.perSecond, 2),
        `${fmt(run.paced.perSecond)} req/s`,
        `${fmt(run.paced.p50Ms, 2)} / ${fmt(run.paced.p99Ms, 2)} ms`,
        `${fmt(run.stored)} = ${fmt(run.valid)}: ${correct ? 'yes' : 'NO'}`,
        `${run.race.exactlyOnce}/${run.race.tickets}${raceCorrect ? '' : ' NOT'}`,
      ].join(' | ')} |`,
    );
  }
  console.log('');
  for (const run of runs) {
    console.log(
      `N=${run.processes} (${run.kind}) answers: ${tally(run.checkIn)} in ${fmt(run.checkIn.elapsedMs / 1000, 1)} s; at half rate: ${tally(run.paced)} in ${fmt(run.paced.elapsedMs / 1000, 1)} s; in bursts: ${tally(run.bursty)} in ${fmt(run.bursty.elapsedMs / 1000, 1)} s; race (${run.race.requests} requests): ${tallyMap(run.race.outcomes)}${run.ranOutOfTickets ? '; RAN OUT OF TICKETS before the time was up (raise --tickets)' : ''}`,
    );
  }
  if (settings.checks === 'both') {
    console.log('');
    console.log("(b) what the type's attention note and ID check add to a check-in (same data dir, same machine, one after the other):");
    for (const withChecks of runs.filter((run) => run.checks)) {
      // The run just before it: without them, same N (`--processes 1,1` alternates off, on, off, on).
      const without = runs[runs.indexOf(withChecks) - 1]!;
      console.log(
        `N=${withChecks.processes}: saturated ${fmt(without.checkIn.perSecond)} → ${fmt(withChecks.checkIn.perSecond)} check-ins/s (with/without ${fmt(withChecks.checkIn.perSecond / without.checkIn.perSecond, 2)}, (b)/(a) with them ${fmt(withChecks.checkIn.perSecond / bare.perSecond, 2)}: ≥ ${RATIO_GOAL[settings.store].label} ${withChecks.checkIn.perSecond / bare.perSecond >= RATIO_GOAL[settings.store].value ? 'met' : 'NOT met'}); at half rate p50 ${fmt(without.paced.p50Ms, 2)} → ${fmt(withChecks.paced.p50Ms, 2)} ms, p99 ${fmt(without.paced.p99Ms, 2)} → ${fmt(withChecks.paced.p99Ms, 2)} ms (p99 < 10 ms with them: ${withChecks.paced.p99Ms < 10 ? 'met' : 'NOT met'})`,
      );
    }
  }
  if (settings.checks === 'both') {
    // (j) the same question in process, both sides alternating within seconds (bench/checks-cost.ts).
    const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 40 });
    try {
      await measureChecksCost(database, dataDir, 'http://127.0.0.1:8443');
    } finally {
      await database.close();
    }
  }
  if (cluster !== undefined) await measureSharedRateLimit(dataDir);
  {
    // (g) the hash chain's cost per append (bench/chain-cost.ts).
    const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 40 });
    try {
      printChainCost(await measureChainCost(database), settings.store === 'postgres' ? 'PostgreSQL' : 'SQLite');
    } finally {
      await database.close();
    }
  }
  if (settings.occupancyTickets > 0) {
    const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 10 });
    try {
      await measureOccupancyCost(database, dataDir, 'http://127.0.0.1:8443', settings.occupancyTickets);
    } finally {
      await database.close();
    }
  }
  if (settings.exportTickets > 0) await measureTicketExport(dataDir.root, settings.exportTickets);
  fs.rmSync(root, { recursive: true, force: true });
  if (!allCorrect) {
    console.error('correctness check FAILED: see the table above');
    process.exitCode = 1;
  }
}

/**
 * (e) What the shared rate limit costs (docs/issuer.md "Serving nodes": the windows live in PostgreSQL so that
 * every process counts them together): the store @fastify/rate-limit calls once per scanner request, driven
 * directly, one count at a time (its latency: what each check-in waits for it) and 50 at a time (its rate).
 */
async function measureSharedRateLimit(dataDir: DataDir): Promise<void> {
  const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 10 });
  try {
    await ensureRateLimitTable(database);
    const Store = postgresRateLimitStore(database);
    // The plugin's typings leave out what it passes at run time: the window and the maximum (store/postgres-rate-limit.ts).
    const store = new Store({}) as unknown as {
      incr(key: string, callback: (error: Error | null) => void, timeWindow: number, max: number): void;
    };
    const count = (key: string): Promise<void> =>
      new Promise((resolve, reject) => store.incr(key, (error) => (error ? reject(error) : resolve()), 60_000, 1_000_000));
    const samples: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const start = performance.now();
      await count(`bench:${i % 50}`);
      samples.push(performance.now() - start);
    }
    const one = percentiles(samples);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, lane) => {
        while (next < 10_000) {
          next += 1;
          await count(`bench:${lane}`);
        }
      }),
    );
    const perSecond = 10_000 / ((performance.now() - started) / 1000);
    console.log('');
    console.log(
      `(e) shared rate limit (PostgreSQL, unlogged table): one count at a time p50 ${fmt(one.p50, 3)} ms, p99 ${fmt(one.p99, 3)} ms (${one.count} counts); 50 at a time ${fmt(perSecond)} counts/s`,
    );
  } finally {
    await database.close();
  }
}

if (isMainThread) await main();
else await serveInThisWorker(workerData as ServerRole);

/**
 * The issuer benchmark (`npm run bench:issuer`). One run, on loopback, plain HTTP:
 *  (a) a bare Fastify JSON route — the ceiling for this machine and HTTP stack;
 *  (b) the real issuer (issuer/server.ts): check-ins from 50 concurrent
 *      scanners, each a first check-in of a fresh ticket, committed durably
 *      (synchronous=FULL, group commit): throughput, p50/p99 and (b)/(a) at
 *      saturation, then p50/p99 with the scanners offering half that rate
 *      (at saturation latency is mostly queueing: p50 ≈ 50 / throughput),
 *      and the bare route again at that rate. Latency is given twice: as the
 *      load generator saw it and as the server thread did (request arrival to
 *      response written), since both share this machine's cores;
 *  (c) bulk issuance: tickets signed and stored per second (issuer/admin/issuance.ts).
 * Goals: (b) ≥ 1/3 of (a) with p99 < 10 ms; (c) ≥ 20,000 tickets/s.
 * Each server runs in its own worker thread so the load generator does not
 * share its event loop. A benchmark, not a test: it prints figures.
 *
 * `--processes N` (issue 13): (b) against N real `ticket-issuer serve` child
 * processes (`--plain-http` on loopback, `--scanner-rpm` lifted) sharing ONE
 * data dir and SQLite file, the load generator's connections spread over them
 * round-robin. N = 1 keeps today's worker thread (the documented figures stay
 * comparable) unless `--child-processes` is given. A list (`--processes 1,2,4`)
 * runs (b) once per N, on the same data dir with fresh tickets each time, and
 * prints one line per N. After each N: stored check-ins = `valid` answers, and
 * a race (every ticket sent to all processes at once) gives one `valid` per ticket.
 * `--store sqlite` is the only store today; `postgres` exits non-zero (not built yet).
 *
 * Options: --store sqlite (sqlite) --processes N[,N…] (1) --child-processes
 *   --tickets N (250000 per entry of --processes: one saturated and one half-rate run of 8 s at ~12,000 check-ins/s fit) --seconds S per load run (8)
 *   --concurrency C (50) --scanners K (50)
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
import { resolveDataDir } from '../issuer/data-dir.js';
import { createLogger } from '../issuer/logging.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openDatabase } from '../issuer/store/database.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import type { EventRow } from '../issuer/store/events.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { freePort } from '../test/support/free-port.js';
import { createBenchScanners as createScanners, type BenchScanner as Scanner } from './bench-scanners.js';
import { numberOption, percentiles, textOption } from './bench-kit.js';
import { runLoad, type LoadResult } from './http-load.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

type ServerRole = { role: 'bare' } | { role: 'issuer'; dataDir: string };

const CHECK_IN_PATH = '/api/v1/tickets/check-in';
const WARM_UP_REQUESTS = 2_000;

/** serve's ceiling for --scanner-rpm, as the crash benchmark uses: far above what one process answers. */
const UNLIMITED_RPM = 1_000_000;
/** Tickets each raced by all N processes at once in the correctness check. */
const RACED_TICKETS = 200;
const MAX_PROCESSES = 16;

interface Settings {
  tickets: number;
  seconds: number;
  concurrency: number;
  scanners: number;
  /** One (b) run per entry: how many issuer processes share the data dir. */
  processes: number[];
  /** N = 1 as a `serve` child process too, instead of today's worker thread. */
  childProcesses: boolean;
}

function settingsFrom(argv: readonly string[]): Settings {
  const value = (flag: string, fallback: number): number => numberOption(argv, flag, fallback);
  const processes = processCounts(textOption(argv, '--processes', '1'));
  return {
    tickets: value('--tickets', 250_000 * processes.length),
    seconds: value('--seconds', 8),
    concurrency: value('--concurrency', 50),
    scanners: value('--scanners', 50),
    processes,
    childProcesses: argv.includes('--child-processes'),
  };
}

/** "1,2,4" → [1, 2, 4]. */
function processCounts(text: string | undefined): number[] {
  const counts = (text ?? '').split(',').map((part) => Number(part.trim()));
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1 || n > MAX_PROCESSES)) {
    throw new Error(`--processes needs a whole number from 1 to ${MAX_PROCESSES}, or a comma-separated list of them (1,2,4)`);
  }
  return counts;
}

/** `--store sqlite|postgres`: only SQLite exists today. */
function checkStore(argv: readonly string[]): void {
  const store = textOption(argv, '--store', 'sqlite');
  if (store === 'sqlite') return;
  if (store === 'postgres') {
    console.error('--store postgres: the PostgreSQL store is not built yet (issue 13); only --store sqlite can be measured today.');
  } else {
    console.error(`--store needs sqlite or postgres (got ${store ?? 'nothing'})`);
  }
  process.exit(2);
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

async function startIssuerFleet(processes: number, dataDir: string, logDir: string, childProcesses: boolean): Promise<IssuerFleet> {
  if (processes === 1 && !childProcesses) {
    const thread = await startServerThread({ role: 'issuer', dataDir });
    return { kind: 'worker thread', urls: [thread.url], ...thread };
  }
  const started: ServeProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const serve of started) serve.process.kill('SIGTERM');
    await Promise.all(started.map((serve) => serve.exited));
  };
  try {
    for (let i = 0; i < processes; i++) {
      const logFile = path.join(logDir, `serve-${processes}-${i}.log`);
      started.push(await startServeProcess(dataDir, await freePort(), ['--scanner-rpm', String(UNLIMITED_RPM)], { logFile }));
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    kind: `${processes} serve process${processes === 1 ? '' : 'es'}`,
    urls: started.map((serve) => serve.url),
    resetTimings: () => {},
    serverLatency: () => Promise.resolve(undefined),
    stop: stopAll,
  };
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
) {
  return runLoad({
    url,
    ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
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

function storedCheckIns(database: string): number {
  const db = openDatabase(database);
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const validAnswers = (result: LoadResult): number => result.outcomes.get('200 valid') ?? 0;

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const tallyMap = (outcomes: Map<string, number>): string => [...outcomes].map(([label, count]) => `${fmt(count)}× ${label}`).join(', ');
const tally = (result: LoadResult): string => tallyMap(result.outcomes);

interface ProcessRun {
  processes: number;
  kind: string;
  checkIn: LoadResult;
  checkInServerSide: LatencySummary | undefined;
  pacedRate: number;
  paced: LoadResult;
  pacedServerSide: LatencySummary | undefined;
  race: RaceResult;
  /** Check-ins stored during this run, and `valid` answers sent during it (warm-up, both loads, race). */
  stored: number;
  valid: number;
  ranOutOfTickets: boolean;
}

async function main(): Promise<void> {
  checkStore(process.argv.slice(2));
  const settings = settingsFrom(process.argv.slice(2));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'issuer-bench-'));
  const dataDir = resolveDataDir(path.join(root, 'issuer-data'));
  const now = new Date();
  console.error(
    `issuer benchmark: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${dataDir.root}`,
  );

  // (c) bulk issuance into the data dir (c) and (b) share.
  await initIssuer(dataDir, 'http://127.0.0.1:8443', 'Benchmark Issuer', now);
  const db = openSqliteDatabase(dataDir.database);
  const event = await createEvent(db, { name: 'Benchmark Night', date: addHours(now, 1), venue: 'Loopback Hall' }, newIdFactory(), now);
  const key = loadSigningKey(dataDir.keysDir, await activeKid(db.read));
  console.error(`(c) issuing ${fmt(settings.tickets)} tickets…`);
  const specs = Array.from({ length: settings.tickets }, (_, i) => ({
    exp: defaultTicketExpiry(event),
    holderName: `Guest ${i}`,
    ticketType: 'Standard',
  }));
  const issueStart = performance.now();
  const issued = await issueTickets(db, { iss: 'http://127.0.0.1:8443', event, key, nextId: newIdFactory(), now }, specs);
  const issueSeconds = (performance.now() - issueStart) / 1000;
  const scanners = await createScanners(db, event, settings.scanners, now);
  await db.close();
  const tids = issued.map((ticket) => ticket.tid);

  const maxMs = settings.seconds * 1000;
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
  for (const processes of settings.processes) {
    const fleet = await startIssuerFleet(processes, dataDir.root, root, settings.childProcesses);
    console.error(`(b) check-in, ${settings.concurrency} concurrent scanners, durable commits, ${fleet.kind}…`);
    const storedBefore = storedCheckIns(dataDir.database);
    const warmUp = await checkInLoad(fleet.urls, settings, event, take(WARM_UP_REQUESTS), scanners, maxMs);
    next += warmUp.requests;
    fleet.resetTimings();
    const saturatedTickets = take(tids.length);
    const checkIn = await checkInLoad(fleet.urls, settings, event, saturatedTickets, scanners, maxMs);
    next += checkIn.requests;
    const checkInServerSide = await fleet.serverLatency();
    const pacedRate = Math.floor(checkIn.perSecond / 2);
    console.error(`(b) again with the scanners offering ${fmt(pacedRate)} check-ins/s together…`);
    fleet.resetTimings();
    const pacedTickets = take(tids.length);
    const paced = await checkInLoad(fleet.urls, settings, event, pacedTickets, scanners, maxMs, pacedRate);
    next += paced.requests;
    const pacedServerSide = await fleet.serverLatency();
    console.error(`(b) correctness: ${RACED_TICKETS} tickets each sent to every process at once…`);
    const race = await raceCheckIns(fleet.urls, event, take(RACED_TICKETS), scanners);
    next += race.tickets;
    await fleet.stop();
    runs.push({
      processes,
      kind: fleet.kind,
      checkIn,
      checkInServerSide,
      pacedRate,
      paced,
      pacedServerSide,
      race,
      stored: storedCheckIns(dataDir.database) - storedBefore,
      valid: validAnswers(warmUp) + validAnswers(checkIn) + validAnswers(paced) + race.valid,
      ranOutOfTickets: checkIn.requests === saturatedTickets.length || paced.requests === pacedTickets.length,
    });
  }

  const first = runs[0]!;
  console.error(`(a) again at that rate…`);
  const bareAgain = await startServerThread({ role: 'bare' });
  await checkInLoad(bareAgain.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  bareAgain.resetTimings();
  const barePaced = await checkInLoad(bareAgain.url, settings, event, tids, scanners, maxMs, first.pacedRate);
  const barePacedServerSide = await bareAgain.serverLatency();
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
      `(b) check-in, ${settings.concurrency} scanners, durable, saturated${firstKind}`,
      `${fmt(first.checkIn.perSecond)} req/s`,
      latency(first.checkIn, first.checkInServerSide),
      '',
    ],
    ['(b)/(a)', fmt(ratio, 2), '', `≥ 0.33: ${ratio >= 1 / 3 ? 'met' : 'NOT met'}`],
    [
      `(b) check-in at half that rate`,
      `${fmt(first.paced.perSecond)} req/s`,
      latency(first.paced, first.pacedServerSide),
      `p99 < 10 ms: ${first.paced.p99Ms < 10 ? 'met' : 'NOT met'}`,
    ],
    [`(a) bare route at that rate`, `${fmt(barePaced.perSecond)} req/s`, latency(barePaced, barePacedServerSide), 'baseline'],
    [
      `(c) bulk issuance, ${fmt(settings.tickets)} tickets`,
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
  console.log(`(b) by number of issuer processes on one SQLite file (store: sqlite; (a) = ${fmt(bare.perSecond)} req/s):`);
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
      `N=${run.processes} (${run.kind}) answers: ${tally(run.checkIn)} in ${fmt(run.checkIn.elapsedMs / 1000, 1)} s; at half rate: ${tally(run.paced)} in ${fmt(run.paced.elapsedMs / 1000, 1)} s; race (${run.race.requests} requests): ${tallyMap(run.race.outcomes)}${run.ranOutOfTickets ? '; RAN OUT OF TICKETS before the time was up (raise --tickets)' : ''}`,
    );
  }
  fs.rmSync(root, { recursive: true, force: true });
  if (!allCorrect) {
    console.error('correctness check FAILED: see the table above');
    process.exitCode = 1;
  }
}

if (isMainThread) await main();
else await serveInThisWorker(workerData as ServerRole);

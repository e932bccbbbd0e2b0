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
 * Options: --tickets N (100000) --seconds S per load run (8) --concurrency C (50) --scanners K (50)
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
import type { EventRow } from '../issuer/store/events.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { createBenchScanners as createScanners, type BenchScanner as Scanner } from './bench-scanners.js';
import { numberOption, percentiles } from './bench-kit.js';
import { runLoad, type LoadResult } from './http-load.js';

type ServerRole = { role: 'bare' } | { role: 'issuer'; dataDir: string };

const CHECK_IN_PATH = '/api/v1/tickets/check-in';
const WARM_UP_REQUESTS = 2_000;

interface Settings {
  tickets: number;
  seconds: number;
  concurrency: number;
  scanners: number;
}

function settingsFrom(argv: readonly string[]): Settings {
  const value = (flag: string, fallback: number): number => numberOption(argv, flag, fallback);
  return {
    tickets: value('--tickets', 100_000),
    seconds: value('--seconds', 8),
    concurrency: value('--concurrency', 50),
    scanners: value('--scanners', 50),
  };
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

// ---------------------------------------------------------------- fixtures

// ---------------------------------------------------------------- measurements

function checkInLoad(
  url: string,
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
        body: JSON.stringify({
          tid: tids[i],
          eid: event.eid,
          scanned_at: new Date().toISOString(),
          scanner_id: scanner.scannerId,
          idempotency_key: crypto.randomUUID(),
        }),
      };
    },
    outcome: (status, body) =>
      `${status} ${(JSON.parse(body) as { status?: string; error?: { code: string } }).status ?? (JSON.parse(body) as { error?: { code: string } }).error?.code}`,
  });
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const tally = (result: LoadResult): string => [...result.outcomes].map(([label, count]) => `${fmt(count)}× ${label}`).join(', ');

async function main(): Promise<void> {
  const settings = settingsFrom(process.argv.slice(2));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'issuer-bench-'));
  const dataDir = resolveDataDir(path.join(root, 'issuer-data'));
  const now = new Date();
  console.error(
    `issuer benchmark: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, data in ${dataDir.root}`,
  );

  // (c) bulk issuance into the data dir (c) and (b) share.
  initIssuer(dataDir, 'http://127.0.0.1:8443', 'Benchmark Issuer', now);
  const db = openDatabase(dataDir.database);
  const event = createEvent(db, { name: 'Benchmark Night', date: addHours(now, 1), venue: 'Loopback Hall' }, newIdFactory(), now);
  const key = loadSigningKey(dataDir.keysDir, activeKid(db));
  console.error(`(c) issuing ${fmt(settings.tickets)} tickets…`);
  const specs = Array.from({ length: settings.tickets }, (_, i) => ({
    exp: defaultTicketExpiry(event),
    holderName: `Guest ${i}`,
    ticketType: 'Standard',
  }));
  const issueStart = performance.now();
  const issued = await issueTickets(db, { iss: 'http://127.0.0.1:8443', event, key, nextId: newIdFactory(), now }, specs);
  const issueSeconds = (performance.now() - issueStart) / 1000;
  const scanners = createScanners(db, event, settings.scanners, now);
  db.close();
  const tids = issued.map((ticket) => ticket.tid);

  const maxMs = settings.seconds * 1000;
  console.error('(a) bare Fastify JSON route…');
  const bareServer = await startServerThread({ role: 'bare' });
  await checkInLoad(bareServer.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  bareServer.resetTimings();
  const bare = await checkInLoad(bareServer.url, settings, event, tids, scanners, maxMs);
  const bareServerSide = await bareServer.serverLatency();
  await bareServer.stop();

  console.error(`(b) check-in, ${settings.concurrency} concurrent scanners, durable commits…`);
  const issuerServer = await startServerThread({ role: 'issuer', dataDir: dataDir.root });
  await checkInLoad(issuerServer.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  issuerServer.resetTimings();
  const checkIn = await checkInLoad(issuerServer.url, settings, event, tids.slice(WARM_UP_REQUESTS), scanners, maxMs);
  const checkInServerSide = await issuerServer.serverLatency();
  const pacedRate = Math.floor(checkIn.perSecond / 2);
  console.error(`(b) again with the scanners offering ${fmt(pacedRate)} check-ins/s together…`);
  issuerServer.resetTimings();
  const paced = await checkInLoad(
    issuerServer.url,
    settings,
    event,
    tids.slice(WARM_UP_REQUESTS + checkIn.requests),
    scanners,
    maxMs,
    pacedRate,
  );
  const pacedServerSide = await issuerServer.serverLatency();
  await issuerServer.stop();
  console.error(`(a) again at that rate…`);
  const bareAgain = await startServerThread({ role: 'bare' });
  await checkInLoad(bareAgain.url, settings, event, tids.slice(0, WARM_UP_REQUESTS), scanners, maxMs);
  bareAgain.resetTimings();
  const barePaced = await checkInLoad(bareAgain.url, settings, event, tids, scanners, maxMs, pacedRate);
  const barePacedServerSide = await bareAgain.serverLatency();
  await bareAgain.stop();

  const ratio = checkIn.perSecond / bare.perSecond;
  const issuanceRate = settings.tickets / issueSeconds;
  // Latency as the load generator saw it, then as the server thread itself saw it.
  const latency = (client: LoadResult, server: LatencySummary): string =>
    `p50 ${fmt(client.p50Ms, 2)} ms, p99 ${fmt(client.p99Ms, 2)} ms (server side: p50 ${fmt(server.p50Ms, 2)}, p99 ${fmt(server.p99Ms, 2)})`;
  const rows: [string, string, string, string][] = [
    ['(a) bare Fastify JSON route', `${fmt(bare.perSecond)} req/s`, latency(bare, bareServerSide), 'baseline'],
    [
      `(b) check-in, ${settings.concurrency} scanners, durable, saturated`,
      `${fmt(checkIn.perSecond)} req/s`,
      latency(checkIn, checkInServerSide),
      '',
    ],
    ['(b)/(a)', fmt(ratio, 2), '', `≥ 0.33: ${ratio >= 1 / 3 ? 'met' : 'NOT met'}`],
    [
      `(b) check-in at half that rate`,
      `${fmt(paced.perSecond)} req/s`,
      latency(paced, pacedServerSide),
      `p99 < 10 ms: ${paced.p99Ms < 10 ? 'met' : 'NOT met'}`,
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
  console.log(
    `(b) answers: ${tally(checkIn)} in ${fmt(checkIn.elapsedMs / 1000, 1)} s; at half rate: ${tally(paced)} in ${fmt(paced.elapsedMs / 1000, 1)} s`,
  );
  fs.rmSync(root, { recursive: true, force: true });
}

if (isMainThread) await main();
else await serveInThisWorker(workerData as ServerRole);

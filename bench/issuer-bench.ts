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
 * share its event loop. A benchmark, not a test: it prints figures. Its parts
 * are in bench/issuer/ (settings, server threads, the fleet of serve
 * processes, the check-in load, the printed report).
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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import { writeNodeConfig } from '../issuer/admin/node-config.js';
import { openIssuer } from '../issuer/admin/issuer-context.js';
import { resolveDataDir, withLocation, type DataDir } from '../issuer/data-dir.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openIssuerDatabase } from '../issuer/store/open.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import type { EventRow } from '../issuer/store/events.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { setTicketTypeAttention } from '../issuer/services/attention-notes.js';
import { setTypeIdCheck } from '../issuer/store/id-checks.js';
import { parseIdCheck } from '../protocol/id-check.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { clusterCpuSeconds } from './cluster-cpu.js';
import { createBenchScanners as createScanners, type BenchScanner as Scanner } from './bench-scanners.js';
import { fmt } from './bench-kit.js';
import { measureChainCost, printChainCost } from './chain-cost.js';
import { measureChecksCost } from './checks-cost.js';
import { measureOccupancyCost } from './occupancy-cost.js';
import { measureSharedRateLimit } from './rate-limit-cost.js';
import { measureTicketExport } from './ticket-export-cost.js';
import { checkInLoad, RACED_TICKETS, raceCheckIns, storedCheckIns, validAnswers, WARM_UP_REQUESTS } from './issuer/check-in-load.js';
import { liveFleets, startIssuerFleet, type FleetTarget } from './issuer/fleet.js';
import { headlineRun, printFigures, type ProcessRun } from './issuer/report.js';
import { startServerThread } from './issuer/server-thread.js';
import { poolSizeFor, POSTGRES_MAX_CONNECTIONS, settingsFrom, storeFrom, type Settings } from './issuer/settings.js';

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

  const first = headlineRun(runs, settings.store);
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

  const allCorrect = printFigures({
    settings,
    bare,
    bareServerSide,
    barePaced,
    barePacedServerSide,
    bareBursty,
    bareBurstyServerSide,
    issueSeconds,
    runs,
  });
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

await main();

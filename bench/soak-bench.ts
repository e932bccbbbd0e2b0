/**
 * The on-site soak benchmark (`npm run bench:soak`): the issuer the
 * kiosk app runs on a venue laptop, under a venue's load.
 *
 *  (a) soak: 40 door kiosks, each scanning a ticket every 2 seconds for 5
 *      minutes; every 25th scan is a ticket another door already admitted
 *      (a re-entry attempt the issuer must refuse `already_used`);
 *  (b) return: 10 more kiosks come back from an hour offline, each with 500
 *      scans in its durable queue (scanned_at spread over that hour), and
 *      drain together while the 40 doors keep scanning and the 10 scan live
 *      too. 5% of each queue are tickets the doors checked in online during
 *      the soak, 5% are tickets another returning kiosk also admitted offline:
 *      offline double admissions, which the issuer must answer `already_used`.
 * Reported: scan-to-verdict and check-in round-trip percentiles during the
 * soak, the time until every queue is empty, and checks against both sides'
 * databases: every scan has an answer (nothing lost), one check-in row per
 * admitted ticket, no ticket with two `valid` answers.
 *
 * Everything is the real thing on loopback: the issuer is main/onsite-issuer
 * (issuer/server.ts, HTTPS with its self-signed certificate, request log at
 * `info` to a file, as the app runs it) in its own worker thread; every kiosk
 * is a KioskCore on its own SQLite file (WAL, synchronous=FULL) that enrolled
 * through POST /api/v1/scanners/enroll with a setup code pinning the
 * certificate; the queues are built by the kiosk's own offline path (issuer
 * stopped, the kiosk's clock set an hour back) and drained by its own drain
 * (queue-drain.ts, Retry-After honoured). The 40 doors run on the main
 * thread, the 10 returning kiosks in a second worker thread. API keys are
 * kept in memory: this measures the door and the issuer, not the OS keyring.
 *
 * Configuration: the on-site issuer's defaults (scanner limit 6,000
 * requests/minute per key, ONSITE_SCANNER_RPM; `--scanner-rpm 600` gives
 * `ticket-issuer serve`'s default) except the enrollment limit per client IP,
 * raised to 1000/minute because here all 50 kiosks enroll from 127.0.0.1 (at
 * a venue each has its own address). A benchmark, not a test: it prints figures.
 *
 * Options: --minutes M (5) --scanners N (40) --interval S seconds between a door's scans (2)
 *          --returning R (10) --queued Q per returning kiosk (500) --offline-hours H (1)
 *          --scanner-rpm N (the on-site default, 6000)
 * Smoke run: npm run bench:soak -- --minutes 0.5
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { issueTickets } from '../issuer/admin/issuance.js';
import { createScannerSetup } from '../issuer/services/scanner-setup.js';
import { DEFAULT_SCANNER_RPM } from '../issuer/services/rate-limits.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openDatabase } from '../issuer/store/database.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import type { ScanResult } from '../main/kiosk/kiosk-api.js';
import { KioskCore } from '../main/kiosk/kiosk-core.js';
import { freePort } from '../test/support/free-port.js';
import { MemoryApiKeys } from '../test/support/memory-api-keys.js';
import { issuerFileLogger, ONSITE_SCANNER_RPM, OnsiteIssuer } from '../main/onsite-issuer/onsite-issuer.js';

interface Settings {
  minutes: number;
  scanners: number;
  intervalS: number;
  returning: number;
  queued: number;
  offlineHours: number;
  scannerRpm: number | undefined;
}

const ENROLL_RPM = 1000;
/** Every n-th door scan is a ticket another door admitted. */
const REENTRY_EVERY = 25;
const SOAK_DUPLICATE_SHARE = 0.05;
const SHARED_DUPLICATE_SHARE = 0.05;
/** The drain is given at most this long; the doors have tickets for it. */
const DRAIN_DEADLINE_S = 600;
const POLL_MS = 50;

function settingsFrom(argv: readonly string[]): Settings {
  const value = (flag: string, fallback: number, max: number, integer = true): number => {
    const i = argv.indexOf(flag);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isFinite(n) || n <= 0 || n > max || (integer && !Number.isInteger(n))) throw new Error(`${flag} needs a ${integer ? 'whole ' : ''}number from 1 to ${max}`);
    return n;
  };
  return {
    minutes: value('--minutes', 5, 240, false),
    scanners: value('--scanners', 40, 500),
    intervalS: value('--interval', 2, 60, false),
    returning: value('--returning', 10, 100),
    queued: value('--queued', 500, 20_000),
    offlineHours: value('--offline-hours', 1, 47, false),
    scannerRpm: argv.includes('--scanner-rpm') ? value('--scanner-rpm', DEFAULT_SCANNER_RPM, 100_000_000) : undefined,
  };
}

// ---------------------------------------------------------------- shared helpers

interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const describe = (s: Summary): string => `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)} (${s.count.toLocaleString('en')} samples)`;
const sleep = (milliseconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
const tally = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);
const tallyText = (map: Map<string, number>): string => [...map].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n.toLocaleString('en')}`).join(', ');

function verdictKind(result: ScanResult): string {
  if (result.type !== 'verdict') return result.type;
  const verdict = result.verdict as { kind: string; offline?: boolean; reason?: string };
  return `${verdict.kind}${verdict.kind === 'refuse' && verdict.reason ? ` ${verdict.reason}` : ''}${verdict.offline ? ' (offline)' : ''}`;
}

/**
 * Times every check-in round trip of this thread's kiosks (the pinned client
 * calls the global fetch), by the kiosk's API key, and counts 429 answers.
 */
function instrumentFetch(onCheckIn: (apiKey: string, elapsedMs: number, status: number, scannedAt: string) => void): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.endsWith('/api/v1/tickets/check-in')) return original(input, init);
    const started = performance.now();
    const response = await original(input, init);
    const bearer = new Headers(init?.headers).get('authorization')?.replace(/^Bearer /, '') ?? '';
    const scannedAt = typeof init?.body === 'string' ? ((JSON.parse(init.body) as { scanned_at?: string }).scanned_at ?? '') : '';
    onCheckIn(bearer, performance.now() - started, response.status, scannedAt);
    return response;
  };
}

/** A tiny request/answer protocol over a worker's messages. */
function rpc<T>(worker: Worker, command: string, payload: unknown = null): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { command: string; result?: T; error?: string }): void => {
      if (message.command !== command) return;
      worker.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(`${command}: ${message.error}`));
      else resolve(message.result as T);
    };
    worker.on('message', onMessage);
    worker.postMessage({ command, payload });
  });
}

function serveCommands(handlers: Record<string, (payload: any) => Promise<unknown>>): void {
  parentPort!.on('message', (message: { command: string; payload: unknown }) => {
    const handler = handlers[message.command];
    if (!handler) return;
    handler(message.payload).then(
      (result) => parentPort!.postMessage({ command: message.command, result }),
      (error: unknown) => parentPort!.postMessage({ command: message.command, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
    );
  });
}

// ---------------------------------------------------------------- the issuer's thread

interface IssuerRole {
  role: 'issuer';
  dataDir: string;
  logFile: string;
  scannerRpm: number | undefined;
}

function issuerWorker(role: IssuerRole): void {
  const issuer = new OnsiteIssuer({
    dataDir: role.dataDir,
    logger: issuerFileLogger(role.logFile),
    enrollRpm: ENROLL_RPM,
    ...(role.scannerRpm === undefined ? {} : { scannerRpm: role.scannerRpm }),
  });
  let mark = performance.eventLoopUtilization();
  serveCommands({
    start: async () => {
      const status = await issuer.start();
      return { fingerprint: status.fingerprint, urls: status.urls };
    },
    stop: async () => {
      await issuer.stop();
      return null;
    },
    // Share of the time this thread was busy since the previous call.
    busy: async () => {
      const now = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(now, mark);
      mark = now;
      return delta.utilization;
    },
  });
  parentPort!.postMessage({ command: 'ready', result: null });
}

// ---------------------------------------------------------------- the returning kiosks' thread

interface ReturningRole {
  role: 'returning';
  kiosks: { dbPath: string; name: string; setupCode: string; queue: string[]; live: string[] }[];
  offlineHours: number;
  intervalS: number;
}

interface DrainOutcome {
  drainedMs: number[];
  allDrainedMs: number;
  pendingLeft: number;
  liveKinds: [string, number][];
  liveScanMs: number[];
  drainRoundTripMs: number[];
  liveRoundTripMs: number[];
  rateLimited: number;
  doubleAdmissions: number;
  /** Share of the drain this thread was busy. */
  busy: number;
}

function returningWorker(role: ReturningRole): void {
  const keys = role.kiosks.map(() => new MemoryApiKeys());
  let cores: KioskCore[] = [];
  const drainTrips: number[] = [];
  let rateLimited = 0;
  // A queued scan was made before the drain began; a live one after.
  let drainBegan = '9999';
  const liveTrips: number[] = [];
  instrumentFetch((_apiKey, elapsed, status, scannedAt) => {
    if (status === 429) rateLimited += 1;
    (scannedAt < drainBegan ? drainTrips : liveTrips).push(elapsed);
  });
  const open = (i: number, options: Partial<ConstructorParameters<typeof KioskCore>[0]> = {}): KioskCore =>
    new KioskCore({ dbPath: role.kiosks[i]!.dbPath, apiKeys: keys[i]!, ...options });

  serveCommands({
    enroll: async () => {
      cores = role.kiosks.map((_, i) => open(i, { autoDrain: false }));
      for (const [i, core] of cores.entries()) {
        await core.setScannerName(role.kiosks[i]!.name);
        const result = await core.scan(role.kiosks[i]!.setupCode);
        if (result.type !== 'enrolled') throw new Error(`${role.kiosks[i]!.name} did not enroll: ${JSON.stringify(result)}`);
      }
      await Promise.all(cores.map((core) => core.close()));
      return null;
    },
    // The issuer is stopped: each kiosk admits its queue offline, its clock running through the last `offlineHours`.
    queue: async () => {
      const kinds = new Map<string, number>();
      const started = Date.now();
      const hourMs = role.offlineHours * 3600_000;
      await Promise.all(
        role.kiosks.map(async (kiosk, i) => {
          let clock = started - hourMs;
          const core = open(i, { autoDrain: false, now: () => clock });
          for (const [k, code] of kiosk.queue.entries()) {
            clock = started - hourMs + Math.floor((k * hourMs) / kiosk.queue.length);
            tally(kinds, verdictKind(await core.scan(code)));
          }
          await core.close();
        }),
      );
      return { kinds: [...kinds], seconds: (Date.now() - started) / 1000 };
    },
    // Back online: every kiosk drains on its own timers (autoDrain, as at a door) and scans live meanwhile.
    drain: async (): Promise<DrainOutcome> => {
      const started = performance.now();
      const busyMark = performance.eventLoopUtilization();
      drainBegan = new Date().toISOString();
      cores = role.kiosks.map((_, i) => open(i));
      const drainedMs: (number | null)[] = cores.map(() => null);
      const liveKinds = new Map<string, number>();
      const liveScanMs: number[] = [];
      let done = false;
      const live = cores.map(async (core, i) => {
        let next = started + (i * role.intervalS * 1000) / cores.length;
        for (const code of role.kiosks[i]!.live) {
          await sleep(next - performance.now());
          if (done) return;
          const t0 = performance.now();
          const result = await core.scan(code);
          liveScanMs.push(performance.now() - t0);
          tally(liveKinds, verdictKind(result));
          next = Math.max(next + role.intervalS * 1000, performance.now());
        }
      });
      const deadline = started + DRAIN_DEADLINE_S * 1000;
      let pendingLeft = 0;
      while (performance.now() < deadline) {
        pendingLeft = 0;
        for (const [i, core] of cores.entries()) {
          const pending = (await core.getState()).pending_scans;
          pendingLeft += pending;
          if (pending === 0 && drainedMs[i] === null) drainedMs[i] = performance.now() - started;
        }
        if (pendingLeft === 0) break;
        await sleep(POLL_MS);
      }
      const allDrainedMs = performance.now() - started;
      done = true;
      await Promise.all(live);
      let doubleAdmissions = 0;
      for (const core of cores) doubleAdmissions += (await core.getState()).double_admissions.length;
      return {
        drainedMs: drainedMs.map((value) => value ?? Number.NaN),
        allDrainedMs,
        pendingLeft,
        liveKinds: [...liveKinds],
        liveScanMs,
        drainRoundTripMs: drainTrips,
        liveRoundTripMs: liveTrips,
        rateLimited,
        doubleAdmissions,
        busy: performance.eventLoopUtilization(performance.eventLoopUtilization(), busyMark).utilization,
      };
    },
    close: async () => {
      await Promise.all(cores.map((core) => core.close()));
      cores = [];
      return null;
    },
  });
  parentPort!.postMessage({ command: 'ready', result: null });
}

function startWorker(data: IssuerRole | ReturningRole): Promise<Worker> {
  const worker = new Worker(new URL(import.meta.url), { workerData: data });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    const onReady = (message: { command: string }): void => {
      if (message.command !== 'ready') return;
      worker.off('message', onReady);
      resolve(worker);
    };
    worker.on('message', onReady);
  });
}

// ---------------------------------------------------------------- the run

/** A deterministic shuffle (mulberry32), so runs are comparable. */
function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

interface Ticket {
  tid: string;
  qr: string;
}

interface Door {
  name: string;
  core: KioskCore;
  keys: MemoryApiKeys;
  tickets: Ticket[];
  next: number;
}

async function main(): Promise<void> {
  const settings = settingsFrom(process.argv.slice(2));
  const { scanners, returning, queued, intervalS } = settings;
  const scansPerDoor = Math.ceil((settings.minutes * 60) / intervalS);
  const drainScansPerDoor = Math.ceil(DRAIN_DEADLINE_S / intervalS);
  const soakDuplicates = Math.round(queued * SOAK_DUPLICATE_SHARE);
  const sharedEach = returning >= 2 ? Math.round((queued * SHARED_DUPLICATE_SHARE) / 2) : 0;
  const uniqueQueued = queued - soakDuplicates - 2 * sharedEach;
  if (uniqueQueued < 0) throw new Error('--queued is too small');
  if (returning * soakDuplicates > scanners * Math.min(scansPerDoor, REENTRY_EVERY - 1)) throw new Error('the soak is too short for the duplicates in the queues: raise --minutes');

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-bench-'));
  const loadBefore = os.loadavg();
  const port = await freePort();
  const baseUrl = `https://127.0.0.1:${port}`;
  const dataDir = path.join(root, 'issuer-data');
  const started = new Date();
  // Set up two hours ago (the issuer's first key is valid from then), so scans from an hour ago verify.
  const setUpAt = addHours(started, -2);
  new OnsiteIssuer({ dataDir, now: () => setUpAt, logger: issuerFileLogger(path.join(root, 'issuer.log')) }).init({ name: 'Soak Festival', baseUrl });

  let issuer: Worker | null = null;
  let returners: Worker | null = null;
  const doors: Door[] = [];
  try {
    const db = openDatabase(path.join(dataDir, 'issuer.db'));
    const event = createEvent(db, { name: 'Soak Night', date: addHours(started, -1.5), venue: 'Harbour Hall' }, newIdFactory(), setUpAt);
    const issueStart = performance.now();
    const exp = Math.floor(addHours(new Date(event.ends_at), 12).getTime() / 1000);
    const ticketCount = scanners * (scansPerDoor + drainScansPerDoor) + returning * (uniqueQueued + sharedEach + drainScansPerDoor);
    const issued = await issueTickets(
      db,
      { iss: baseUrl, event, key: loadSigningKey(path.join(dataDir, 'keys'), activeKid(db)), nextId: newIdFactory(), now: setUpAt },
      Array.from({ length: ticketCount }, (_, i) => ({ holderName: `Guest ${i + 1}`, ticketType: 'Standard', exp })),
    );
    const issueSeconds = (performance.now() - issueStart) / 1000;
    const tickets: Ticket[] = issued.map((ticket) => ({ tid: ticket.tid, qr: ticket.qr }));
    let cursor = 0;
    const take = (n: number): Ticket[] => tickets.slice(cursor, (cursor += n));
    const doorTickets = Array.from({ length: scanners }, () => take(scansPerDoor + drainScansPerDoor));
    const sharedPools = Array.from({ length: returning }, () => take(sharedEach));
    const queues = Array.from({ length: returning }, (_, r) => {
      const own = take(uniqueQueued);
      // Tickets a door will check in online early in the soak (never a re-entry slot).
      const fromSoak = Array.from({ length: soakDuplicates }, (_, m) => {
        const n = r * soakDuplicates + m;
        return doorTickets[n % scanners]![Math.floor(n / scanners)]!;
      });
      const shared = returning >= 2 ? [...sharedPools[r]!, ...sharedPools[(r + 1) % returning]!] : [];
      return { tickets: shuffle([...own, ...fromSoak, ...shared], 1000 + r), fromSoak, shared };
    });
    const liveForReturning = Array.from({ length: returning }, () => take(drainScansPerDoor));

    console.log(`soak benchmark — ${started.toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average before ${loadBefore.map((n) => n.toFixed(2)).join(' ')}`);
    console.log(
      `issuer: main/onsite-issuer (issuer/server.ts) in a worker thread, HTTPS with its self-signed certificate on ${baseUrl}, request log at info to a file; ` +
        `scanner limit ${settings.scannerRpm ?? ONSITE_SCANNER_RPM}/min per key${settings.scannerRpm === undefined ? ' (the on-site default)' : ''}, enrollment limit ${ENROLL_RPM}/min per IP (raised: every kiosk here is 127.0.0.1)`,
    );
    console.log(`kiosks: ${scanners} doors on the main thread and ${returning} returning kiosks in a second worker thread, each a KioskCore on its own SQLite file, pinning the issuer's certificate\n`);

    // --- the issuer, enrollment
    issuer = await startWorker({ role: 'issuer', dataDir, logFile: path.join(root, 'issuer.log'), scannerRpm: settings.scannerRpm });
    const { fingerprint } = await rpc<{ fingerprint: string }>(issuer, 'start');
    const setup = (): string => createScannerSetup(db, baseUrl, event, { tlsCertSha256: fingerprint }, new Date()).setup_qr;
    const enrollStart = performance.now();
    for (let i = 0; i < scanners; i++) {
      const keys = new MemoryApiKeys();
      const core = new KioskCore({ dbPath: path.join(root, `door-${i + 1}.db`), apiKeys: keys });
      const name = `Door ${String(i + 1).padStart(2, '0')}`;
      await core.setScannerName(name);
      const result = await core.scan(setup());
      if (result.type !== 'enrolled') throw new Error(`${name} did not enroll: ${JSON.stringify(result)}`);
      doors.push({ name, core, keys, tickets: doorTickets[i]!, next: 0 });
    }
    returners = await startWorker({
      role: 'returning',
      offlineHours: settings.offlineHours,
      intervalS,
      kiosks: queues.map((queue, r) => ({
        dbPath: path.join(root, `returning-${r + 1}.db`),
        name: `Returning ${String(r + 1).padStart(2, '0')}`,
        setupCode: setup(),
        queue: queue.tickets.map((ticket) => ticket.qr),
        live: liveForReturning[r]!.map((ticket) => ticket.qr),
      })),
    });
    await rpc(returners, 'enroll');
    const enrollSeconds = (performance.now() - enrollStart) / 1000;

    // --- an hour offline: the returning kiosks admit their queues while the issuer is unreachable
    await rpc(issuer, 'stop');
    const queuedRun = await rpc<{ kinds: [string, number][]; seconds: number }>(returners, 'queue');
    await rpc(issuer, 'start');
    console.log(
      `setup: ${ticketCount.toLocaleString('en')} tickets issued in ${issueSeconds.toFixed(1)} s; ${scanners + returning} kiosks enrolled in ${enrollSeconds.toFixed(1)} s; ` +
        `${(returning * queued).toLocaleString('en')} scans admitted offline with the issuer stopped (scanned_at over the last ${settings.offlineHours} h) in ${queuedRun.seconds.toFixed(1)} s [${tallyText(new Map(queuedRun.kinds))}]`,
    );

    // --- (a) the soak, then (b) the return, the doors scanning throughout
    const roundTrips = { soak: [] as number[], drain: [] as number[] };
    const scanTimes = { soak: [] as number[], drain: [] as number[] };
    const kinds = { soak: new Map<string, number>(), drain: new Map<string, number>() };
    let phase: 'soak' | 'drain' = 'soak';
    const doorKeys = new Set<string>();
    for (const door of doors) doorKeys.add(door.keys.key!);
    let doorRateLimited = 0;
    instrumentFetch((apiKey, elapsed, status) => {
      if (!doorKeys.has(apiKey)) return;
      roundTrips[phase].push(elapsed);
      if (status === 429) doorRateLimited += 1;
    });
    const admitted: { door: number; tid: string; qr: string }[] = [];
    let reentries = 0;
    let stopDoors = false;
    let ranOut = 0;
    const mainBusy = { mark: performance.eventLoopUtilization() };
    const busySince = (): number => {
      const now = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(now, mainBusy.mark);
      mainBusy.mark = now;
      return delta.utilization;
    };
    await rpc(issuer, 'busy');
    busySince();

    const soakStart = performance.now();
    // Every queued scan was made before this; the returning kiosks' live scans after it.
    const soakStartedAt = new Date().toISOString();
    const soakEnd = soakStart + settings.minutes * 60_000;
    const doorLoop = async (door: Door, index: number): Promise<void> => {
      let next = soakStart + (index * intervalS * 1000) / scanners;
      let scans = 0;
      while (!stopDoors) {
        await sleep(next - performance.now());
        if (stopDoors) return;
        scans += 1;
        let code: string;
        let reentry = false;
        const other = admitted.findLast((entry) => entry.door !== index);
        if (scans % REENTRY_EVERY === 0 && other) {
          code = other.qr;
          reentry = true;
        } else if (door.next < door.tickets.length) {
          code = door.tickets[door.next++]!.qr;
        } else {
          ranOut += 1;
          return;
        }
        const during = phase;
        const t0 = performance.now();
        const result = await door.core.scan(code);
        scanTimes[during].push(performance.now() - t0);
        const kind = verdictKind(result);
        tally(kinds[during], reentry ? `re-entry → ${kind}` : kind);
        if (reentry) reentries += 1;
        else if (result.type === 'verdict' && result.verdict.kind === 'admit') admitted.push({ door: index, tid: result.verdict.ticket!.tid, qr: code });
        next = Math.max(next + intervalS * 1000, performance.now());
      }
    };
    const doorRuns = doors.map((door, i) => doorLoop(door, i));
    await sleep(soakEnd - performance.now());
    const soakSeconds = (performance.now() - soakStart) / 1000;
    const soakBusy = { issuer: await rpc<number>(issuer, 'busy'), doors: busySince() };

    phase = 'drain';
    const drain = await rpc<DrainOutcome>(returners, 'drain');
    const drainBusy = { issuer: await rpc<number>(issuer, 'busy'), doors: busySince() };
    stopDoors = true;
    await Promise.all(doorRuns);
    let doorDoubleAdmissions = 0;
    for (const door of doors) doorDoubleAdmissions += (await door.core.getState()).double_admissions.length;
    const doorPending = (await Promise.all(doors.map(async (door) => (await door.core.getState()).pending_scans))).reduce((a, b) => a + b, 0);

    // --- stop everything cleanly, then read both sides' databases
    await rpc(returners, 'close');
    for (const door of doors.splice(0)) await door.core.close();
    await rpc(issuer, 'stop');
    db.close();

    const soak = { scans: summarize(scanTimes.soak), trips: summarize(roundTrips.soak) };
    const offered = (scanners / intervalS).toFixed(1);
    console.log(`\n(a) soak: ${scanners} doors × 1 scan every ${intervalS} s for ${settings.minutes} min = ${soak.scans.count.toLocaleString('en')} scans in ${soakSeconds.toFixed(0)} s (${offered}/s offered, ${(soak.scans.count / soakSeconds).toFixed(1)}/s done)`);
    console.log(`    scan-to-verdict at the door: ${describe(soak.scans)}`);
    console.log(`    check-in round trip (HTTPS, pinned): ${describe(soak.trips)}`);
    console.log(`    verdicts: ${tallyText(kinds.soak)}`);
    console.log(`    busy: issuer thread ${(soakBusy.issuer * 100).toFixed(1)}% of the time, doors' thread ${(soakBusy.doors * 100).toFixed(1)}%`);

    const queuedTotal = returning * queued;
    const drainedS = drain.drainedMs.map((value) => value / 1000).sort((a, b) => a - b);
    console.log(`\n(b) return: ${returning} kiosks back after ${settings.offlineHours} h offline with ${queued} queued scans each (${queuedTotal.toLocaleString('en')}), draining together while every kiosk keeps scanning:`);
    console.log(
      `    every queue empty after ${(drain.allDrainedMs / 1000).toFixed(2)} s (per kiosk ${drainedS[0]?.toFixed(2)} to ${drainedS.at(-1)?.toFixed(2)} s) = ${(queuedTotal / (drain.allDrainedMs / 1000)).toFixed(0)} queued scans/s; ` +
        `429 answers: ${drain.rateLimited.toLocaleString('en')}${drain.pendingLeft > 0 ? `; NOT DRAINED: ${drain.pendingLeft} left after ${DRAIN_DEADLINE_S} s` : ''}`,
    );
    console.log(`    drain check-in round trip: ${describe(summarize(drain.drainRoundTripMs))}`);
    console.log(`    the ${scanners} doors meanwhile: scan-to-verdict ${describe(summarize(scanTimes.drain))}; round trip ${describe(summarize(roundTrips.drain))}`);
    console.log(`      [${tallyText(kinds.drain)}]`);
    console.log(`    the ${returning} returning kiosks' own live scans: scan-to-verdict ${describe(summarize(drain.liveScanMs))}; round trip ${describe(summarize(drain.liveRoundTripMs))}`);
    console.log(`      [${tallyText(new Map(drain.liveKinds))}]`);
    console.log(`    busy: issuer thread ${(drainBusy.issuer * 100).toFixed(1)}%, doors' thread ${(drainBusy.doors * 100).toFixed(1)}%, returning kiosks' thread ${(drain.busy * 100).toFixed(1)}%`);

    // --- checks against the databases
    const check = verify(root, dataDir, scanners, returning, soakStartedAt);
    const expectedDoubles = returning * soakDuplicates + returning * sharedEach;
    console.log(
      `    issuer's answers to the queued scans: ${tallyText(check.queuedAnswers)}; double admissions reported by the returning kiosks: ${drain.doubleAdmissions} ` +
        `(expected ${expectedDoubles}: ${returning * soakDuplicates} tickets also used at a door, ${returning * sharedEach} admitted offline at two kiosks), by the doors: ${doorDoubleAdmissions}`,
    );
    console.log(`    door re-entry attempts: ${reentries}; doors out of tickets: ${ranOut}; issuer log ${(fs.statSync(path.join(root, 'issuer.log')).size / 1e6).toFixed(1)} MB\n`);

    const line = (ok: boolean, text: string): void => console.log(`${ok ? 'PASS' : 'FAIL'}  ${text}`);
    line(check.unanswered === 0 && check.missingAtIssuer === 0 && doorPending === 0 && drain.pendingLeft === 0, `nothing lost: all ${check.kioskScans.toLocaleString('en')} scans of all ${scanners + returning} kiosks have the issuer's answer on the kiosk (${check.unanswered} without) and a stored answer at the issuer (${check.missingAtIssuer} missing)`);
    line(
      check.duplicateCheckins === 0 && check.ticketsWithTwoValid === 0 && check.validWithoutCheckin === 0 && check.checkinWithoutValid === 0,
      `no ticket admitted twice by the issuer: ${check.checkins.toLocaleString('en')} check-in rows, one per ticket answered valid (tickets with two valid answers: ${check.ticketsWithTwoValid}, valid without a check-in row: ${check.validWithoutCheckin}, check-ins without a valid answer: ${check.checkinWithoutValid})`,
    );
    line(drain.doubleAdmissions === expectedDoubles, `every offline double admission found: ${drain.doubleAdmissions} of ${expectedDoubles}`);
    line(drain.pendingLeft === 0, `every queue drained (${drain.pendingLeft} scans left)`);
    if (doorRateLimited > 0) console.log(`note: the doors got ${doorRateLimited} answers 429`);
  } finally {
    for (const door of doors) await door.core.close().catch(() => undefined);
    if (returners) await returners.terminate();
    if (issuer) {
      await rpc(issuer, 'stop').catch(() => undefined);
      await issuer.terminate();
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
}

interface Verification {
  kioskScans: number;
  unanswered: number;
  missingAtIssuer: number;
  checkins: number;
  duplicateCheckins: number;
  ticketsWithTwoValid: number;
  validWithoutCheckin: number;
  checkinWithoutValid: number;
  queuedAnswers: Map<string, number>;
}

/** Reads every kiosk's scans and the issuer's stored answers and check-ins, after all of them closed. */
function verify(root: string, dataDir: string, scanners: number, returning: number, queuedBefore: string): Verification {
  const files = [...Array.from({ length: scanners }, (_, i) => `door-${i + 1}.db`), ...Array.from({ length: returning }, (_, r) => `returning-${r + 1}.db`)];
  const scans: { key: string; tid: string; state: string; result: string | null; scannedAt: string; returning: boolean }[] = [];
  for (const file of files) {
    const kiosk = new Database(path.join(root, file), { readonly: true });
    try {
      const rows = kiosk.prepare('SELECT idempotency_key AS key, tid, queue_state AS state, result_status AS result, scanned_at AS scannedAt FROM scans').all() as Omit<(typeof scans)[number], 'returning'>[];
      for (const row of rows) scans.push({ ...row, returning: file.startsWith('returning') });
    } finally {
      kiosk.close();
    }
  }
  const issuer = new Database(path.join(dataDir, 'issuer.db'), { readonly: true });
  try {
    const answers = new Map<string, { status: string | null; tid: string | null }>();
    for (const row of issuer
      .prepare(`SELECT idempotency_key AS key, json_extract(response_body, '$.status') AS status, json_extract(response_body, '$.ticket.tid') AS tid FROM idempotency`)
      .all() as { key: string; status: string | null; tid: string | null }[]) {
      answers.set(row.key, { status: row.status, tid: row.tid });
    }
    const checkins = issuer.prepare('SELECT tid, idempotency_key AS key FROM checkins').all() as { tid: string; key: string }[];
    const validByTid = new Map<string, number>();
    for (const answer of answers.values()) if (answer.status === 'valid' && answer.tid) validByTid.set(answer.tid, (validByTid.get(answer.tid) ?? 0) + 1);
    const checkinTids = new Set(checkins.map((row) => row.tid));
    const queuedAnswers = new Map<string, number>();
    for (const scan of scans) if (scan.returning && scan.scannedAt < queuedBefore) tally(queuedAnswers, scan.state === 'done' ? (scan.result ?? 'none') : scan.state);
    return {
      kioskScans: scans.length,
      unanswered: scans.filter((scan) => scan.state !== 'done' || scan.result === null).length,
      missingAtIssuer: scans.filter((scan) => !answers.has(scan.key)).length,
      checkins: checkins.length,
      duplicateCheckins: checkins.length - checkinTids.size,
      ticketsWithTwoValid: [...validByTid.values()].filter((n) => n > 1).length,
      validWithoutCheckin: [...validByTid.keys()].filter((tid) => !checkinTids.has(tid)).length,
      checkinWithoutValid: checkins.filter((row) => answers.get(row.key)?.status !== 'valid' || answers.get(row.key)?.tid !== row.tid).length,
      queuedAnswers,
    };
  } finally {
    issuer.close();
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  const data = workerData as IssuerRole | ReturningRole;
  if (data.role === 'issuer') issuerWorker(data);
  else returningWorker(data);
}

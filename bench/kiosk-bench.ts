/**
 * The kiosk benchmark (`npm run bench:kiosk`, i.e. `node dist/bench/kiosk-bench.js`
 * after `npx tsc -p tsconfig.json`). One run, loopback only, bounded in count:
 *  (a) offline decode + verify: protocol/verdict.ts evaluateTicketOffline over
 *      distinct real tickets (decode, key lookup, Ed25519 verify with the
 *      kiosk's node:crypto verifier, local checks);
 *  (b) online scan-to-verdict: KioskCore.scan against the real issuer
 *      (issuer/server.ts, plain HTTP on 127.0.0.1), first check-in of each ticket;
 *  (c) queue drain: scans admitted offline while the issuer is stopped (their
 *      scan-to-verdict time, with the durable SQLite commit, is printed too),
 *      then the issuer is started and the time to drain the queue to zero measured.
 *  (d) HID scanners (bench/hid-bench.ts): decode throughput in reports/s, a
 *      490-character ticket over HID-POS from its first report to its verdict
 *      offline, and the calibration code to its diagnosis.
 *  (e) revocation list: N tickets of another event revoked at the issuer (through the real revoking path,
 *      store/tickets.ts revokeTicket, which numbers each), then one KioskCore.syncRevocations from an empty
 *      list over loopback: its time, and kiosk.db's growth in bytes (the file after close, WAL checkpointed).
 * Goals: (a) p99 < 5 ms; (b) p99 < 50 ms; (c) ≥ 500 scans/s; (d) first report to verdict p99 < 20 ms;
 *        (e) 100,000 revocations sync in < 2 s and take < 5 MB on the kiosk.
 *
 * The issuer runs in its own worker thread (as it runs in its own process in
 * real life), so it does not share the kiosk's event loop. The kiosk's API key
 * is kept in memory here: the benchmark measures scanning, not the OS keyring.
 * A benchmark, not a test: it prints figures.
 *
 * Options: --verify N (5000) --online N (500) --drain N (10000) --concurrency N (the kiosk's default, DEFAULT_DRAIN_CONCURRENCY)
 *          --hid N (500 long tickets over HID-POS) --decode N (20000 scans through each decoder)
 *          --revocations N (100000 revoked tickets for (e); 0 skips it)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { addHours } from '../issuer/time.js';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { initIssuer } from '../issuer/admin/init.js';
import { issueTickets } from '../issuer/admin/issuance.js';
import { createScannerSetup } from '../issuer/services/scanner-setup.js';
import { resolveDataDir } from '../issuer/data-dir.js';
import { createLogger } from '../issuer/logging.js';
import { loadSigningKey } from '../issuer/signing.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import type { EventRow } from '../issuer/store/events.js';
import { activeKid, publishedKeys } from '../issuer/store/signing-keys.js';
import { insertTickets, revokeTicket } from '../issuer/store/tickets.js';
import { REVOCATION_PAGE_DEFAULT } from '../protocol/revocations.js';
import { evaluateTicketOffline } from '../protocol/verdict.js';
import type { ScanResult } from '../main/kiosk/kiosk-api.js';
import { KioskCore } from '../main/kiosk/kiosk-core.js';
import { freePort } from '../test/support/free-port.js';
import { MemoryApiKeys } from '../test/support/unit/memory-api-keys.js';
import { numberOption, percentiles } from './bench-kit.js';
import { verifyEd25519Node } from '../main/kiosk/node-ed25519.js';
import { DEFAULT_DRAIN_CONCURRENCY } from '../main/kiosk/sync/queue-drain.js';
import { decodeThroughput, hidToVerdict } from './hid-bench.js';

interface Settings {
  verify: number;
  online: number;
  drain: number;
  /** Requests the drain keeps in flight (KioskCore drainConcurrency); the kiosk's default when not given. */
  concurrency: number | undefined;
  hid: number;
  decode: number;
  revocations: number;
}

const GOALS = {
  verifyP99Ms: 5,
  onlineP99Ms: 50,
  drainPerSecond: 500,
  hidToVerdictP99Ms: 20,
  revocationSyncMs: 2000,
  revocationBytes: 5 * 1024 * 1024,
};
/** The long ticket of the HID goal: a long holder name and event make a code of about this many characters. */
const LONG_TICKET_LENGTH = 490;
const CALIBRATIONS = 50;
/** Upper bound of one run: the drain stops being waited for after this. */
const DRAIN_DEADLINE_MS = 180_000;

function settingsFrom(argv: readonly string[]): Settings {
  const value = (flag: string, fallback: number): number => numberOption(argv, flag, fallback, { max: 100_000 });
  return {
    verify: value('--verify', 5_000),
    online: value('--online', 500),
    drain: value('--drain', 10_000),
    concurrency: process.argv.includes('--concurrency') ? value('--concurrency', DEFAULT_DRAIN_CONCURRENCY) : undefined,
    hid: value('--hid', 500),
    decode: value('--decode', 20_000),
    revocations: numberOption(argv, '--revocations', 100_000, { min: 0, max: 1_000_000 }),
  };
}

// ---------------------------------------------------------------- the issuer's thread

interface IssuerRole {
  dataDir: string;
  port: number;
}

async function serveInThisWorker(role: IssuerRole): Promise<void> {
  const { startServer } = await import('../issuer/server.js');
  const server = await startServer({
    dataDir: role.dataDir,
    host: '127.0.0.1',
    port: role.port,
    plainHttp: true,
    // The drain sends thousands of check-ins a second with one key: no rate limit in the way of the figure.
    scannerRpm: 100_000_000,
    handleSignals: false,
    logger: createLogger({ level: 'warn' }),
  });
  parentPort!.once('message', () => {
    void server.close().then(() => parentPort!.postMessage('closed'));
  });
  parentPort!.postMessage('ready');
}

interface IssuerThread {
  stop(): Promise<void>;
}

function startIssuerThread(role: IssuerRole): Promise<IssuerThread> {
  const worker = new Worker(new URL(import.meta.url), { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () =>
      resolve({
        stop: () =>
          new Promise<void>((done) => {
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('close');
          }),
      }),
    );
  });
}

// ---------------------------------------------------------------- helpers

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const verdictKind = (result: ScanResult): string =>
  result.type === 'verdict' ? `${result.verdict.kind}${result.verdict.offline ? ' (offline)' : ''}` : result.type;

async function issue(
  db: SqlDatabase,
  baseUrl: string,
  event: EventRow,
  dataDir: ReturnType<typeof resolveDataDir>,
  count: number,
  holderPadding = 0,
): Promise<string[]> {
  const key = loadSigningKey(dataDir.keysDir, await activeKid(db.read));
  const exp = Math.floor(Date.now() / 1000) + 48 * 3600;
  const padding = holderPadding > 0 ? ` ${'x'.repeat(holderPadding)}` : '';
  const specs = Array.from({ length: count }, (_, i) => ({ holderName: `Guest ${i + 1}${padding}`, ticketType: 'Standard', exp }));
  const tickets = await issueTickets(db, { iss: baseUrl, event, key, nextId: newIdFactory(), now: new Date() }, specs);
  return tickets.map((ticket) => ticket.qr);
}

// ---------------------------------------------------------------- (e) the revocation list

const fileBytes = (file: string): number => (fs.existsSync(file) ? fs.statSync(file).size : 0);
const storeBytes = (dbPath: string): number => fileBytes(dbPath) + fileBytes(`${dbPath}-wal`);

async function revocationSync(
  db: SqlDatabase,
  baseUrl: string,
  dataDir: ReturnType<typeof resolveDataDir>,
  root: string,
  port: number,
  count: number,
): Promise<{ ms: number; bytes: number; complete: boolean }> {
  const now = new Date();
  const event = await createEvent(db, { name: 'Revocation Night', date: addHours(now, 1), venue: 'Hall' }, newIdFactory(), now);
  const setup = await db.write((tx) => createScannerSetup(tx, baseUrl, event, {}, now));
  const kid = await activeKid(db.read);
  const nextId = newIdFactory();
  const exp = Math.floor(Date.now() / 1000) + 48 * 3600;
  // Ticket rows only (the sync never reads a QR): issuing 100,000 signed codes would measure the signer, not this.
  const tids = Array.from({ length: count }, () => nextId());
  for (let start = 0; start < tids.length; start += 10_000) {
    const batch = tids.slice(start, start + 10_000);
    await db.write(async (tx) => {
      await insertTickets(
        tx,
        batch.map((tid) => ({
          tid,
          eid: event.eid,
          kid,
          holder_name: null,
          ticket_type: null,
          issued_at: now.toISOString(),
          exp,
          qr: `bench.${tid}`,
        })),
      );
      for (const tid of batch) await revokeTicket(tx, tid, 'bench', now.toISOString());
    });
  }
  const issuer = await startIssuerThread({ dataDir: dataDir.root, port });
  const dbPath = path.join(root, 'revocations-kiosk.db');
  const open = () => new KioskCore({ dbPath, apiKeys: keys, autoDrain: false, heartbeatIntervalMs: 0, revocationSyncIntervalMs: 0 });
  const keys = new MemoryApiKeys();
  try {
    // Enrolled (its enrollment syncs once in the background, before the bench measures), then closed: the baseline.
    let kiosk = open();
    const enrolled = await kiosk.scan(setup.setup_qr);
    if (enrolled.type !== 'enrolled') throw new Error(`enrollment failed: ${JSON.stringify(enrolled)}`);
    await kiosk.close();
    // The enrollment's background sync already took the list: start the measured sync from an empty one.
    const reset = new (await import('better-sqlite3')).default(dbPath);
    reset.exec("DELETE FROM revoked_tickets; DELETE FROM settings WHERE key = 'revocations'; VACUUM;");
    reset.close();
    const before = storeBytes(dbPath);
    kiosk = open();
    const start = performance.now();
    await kiosk.syncRevocations();
    const elapsed = performance.now() - start;
    const state = await kiosk.getState();
    await kiosk.close(); // the last connection checkpoints the WAL into the file
    const after = storeBytes(dbPath);
    const listed = state.revocations?.count ?? 0;
    console.log(
      `(e) revocation list: ${count} revoked at the issuer, one sync from an empty list: ${listed} listed in ${ms(elapsed)} (${Math.ceil(count / REVOCATION_PAGE_DEFAULT)} pages of ${REVOCATION_PAGE_DEFAULT}); kiosk.db ${before} → ${after} bytes (+${((after - before) / 1024 / 1024).toFixed(2)} MB, ${((after - before) / Math.max(1, listed)).toFixed(1)} bytes per ticket)\n`,
    );
    return { ms: elapsed, bytes: after - before, complete: listed === count && state.revocations?.synced_at != null };
  } finally {
    await issuer.stop();
  }
}

// ---------------------------------------------------------------- the run

async function main(): Promise<void> {
  const settings = settingsFrom(process.argv.slice(2));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-bench-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = resolveDataDir(path.join(root, 'issuer'));
  const now = new Date();
  await initIssuer(dataDir, baseUrl, 'Bench Tickets', now);
  const db = openSqliteDatabase(dataDir.database);
  let issuer: IssuerThread | null = null;
  let core: KioskCore | null = null;
  try {
    const event = await createEvent(db, { name: 'Bench Night', date: addHours(now, 1), venue: 'Hall' }, newIdFactory(), now);
    const setup = await db.write((tx) => createScannerSetup(tx, baseUrl, event, {}, now));
    const total = settings.verify + settings.online + settings.drain;
    const codes = await issue(db, baseUrl, event, dataDir, total);
    const verifyCodes = codes.slice(0, settings.verify);
    const onlineCodes = codes.slice(settings.verify, settings.verify + settings.online);
    const drainCodes = codes.slice(settings.verify + settings.online);

    console.log(
      `kiosk benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'})`,
    );
    console.log(
      `issuer: issuer/server.ts in a worker thread, plain HTTP on ${baseUrl}; kiosk: KioskCore on a temp SQLite file (WAL, synchronous=FULL)\n`,
    );

    // (a) offline decode + verify, pure.
    const keys = await publishedKeys(db.read, Math.floor(Date.now() / 1000));
    // With the verifier KioskCore passes (node:crypto): the figure is the kiosk's, not the portable default's.
    const context = {
      issuer: baseUrl,
      eid: event.eid,
      keys,
      nowMs: Date.now(),
      admittedHereAt: () => undefined,
      verify: verifyEd25519Node,
    };
    for (const code of verifyCodes.slice(0, 200)) evaluateTicketOffline(code, context); // warm-up (JIT, key objects)
    const verifySamples: number[] = [];
    let verified = 0;
    for (const code of verifyCodes) {
      const start = performance.now();
      const evaluation = evaluateTicketOffline(code, context);
      verifySamples.push(performance.now() - start);
      if (evaluation.pass) verified += 1;
    }
    const verify = percentiles(verifySamples);
    console.log(
      `(a) offline decode + verify, ${verify.count} distinct tickets (${verified} verified): p50 ${ms(verify.p50)}, p99 ${ms(verify.p99)}, max ${ms(verify.max)}`,
    );

    // (b) online scan-to-verdict against the real issuer.
    issuer = await startIssuerThread({ dataDir: dataDir.root, port });
    core = new KioskCore({
      dbPath: path.join(root, 'kiosk.db'),
      apiKeys: new MemoryApiKeys(),
      autoDrain: false,
      ...(settings.concurrency === undefined ? {} : { drainConcurrency: settings.concurrency }),
    });
    const enrolled = await core.scan(setup.setup_qr);
    if (enrolled.type !== 'enrolled') throw new Error(`enrollment failed: ${JSON.stringify(enrolled)}`);
    const warmUp = await issue(db, baseUrl, event, dataDir, 50);
    for (const code of warmUp) await core.scan(code);
    const onlineSamples: number[] = [];
    const onlineKinds = new Map<string, number>();
    for (const code of onlineCodes) {
      const start = performance.now();
      const result = await core.scan(code);
      onlineSamples.push(performance.now() - start);
      onlineKinds.set(verdictKind(result), (onlineKinds.get(verdictKind(result)) ?? 0) + 1);
    }
    const online = percentiles(onlineSamples);
    console.log(
      `(b) online scan-to-verdict, ${online.count} scans: p50 ${ms(online.p50)}, p99 ${ms(online.p99)}, max ${ms(online.max)}  [${[...onlineKinds].map(([k, n]) => `${k}: ${n}`).join(', ')}]`,
    );

    // (c) queue offline, then drain.
    await issuer.stop();
    issuer = null;
    const offlineSamples: number[] = [];
    const offlineKinds = new Map<string, number>();
    for (const code of drainCodes) {
      const start = performance.now();
      const result = await core.scan(code);
      offlineSamples.push(performance.now() - start);
      offlineKinds.set(verdictKind(result), (offlineKinds.get(verdictKind(result)) ?? 0) + 1);
    }
    const offline = percentiles(offlineSamples);
    const queued = (await core.getState()).pending_scans;
    console.log(
      `    offline scan-to-verdict (durable commit), ${offline.count} scans: p50 ${ms(offline.p50)}, p99 ${ms(offline.p99)}, max ${ms(offline.max)}  [${[...offlineKinds].map(([k, n]) => `${k}: ${n}`).join(', ')}]`,
    );

    issuer = await startIssuerThread({ dataDir: dataDir.root, port });
    const drainStart = performance.now();
    let pending = queued;
    while (pending > 0 && performance.now() - drainStart < DRAIN_DEADLINE_MS) {
      const report = await core.drain();
      pending = (await core.getState()).pending_scans;
      if (report?.stop !== 'empty' && pending > 0)
        throw new Error(`the drain stopped: ${report?.stop ?? 'not run'} with ${pending} pending`);
    }
    const drainSeconds = (performance.now() - drainStart) / 1000;
    const drained = queued - pending;
    const checkins = (await db.read.get<{ n: number }>('SELECT COUNT(*) AS n FROM checkins'))!.n;
    const rate = drained / drainSeconds;
    console.log(
      `(c) drain (${settings.concurrency ?? DEFAULT_DRAIN_CONCURRENCY} in flight): ${drained} of ${queued} queued scans in ${drainSeconds.toFixed(2)} s = ${rate.toFixed(0)} scans/s (issuer now holds ${checkins} check-ins)`,
    );

    // (d) HID scanners: long tickets (a holder name long enough for about LONG_TICKET_LENGTH characters).
    const sample = (await issue(db, baseUrl, event, dataDir, 1))[0]!;
    const padding = Math.max(0, Math.round(((LONG_TICKET_LENGTH - sample.length) * 3) / 4) - 1);
    const longCodes = await issue(db, baseUrl, event, dataDir, settings.hid + 1, padding);
    const longLength = longCodes[0]!.length;
    const throughput = decodeThroughput(longCodes[0]!, settings.decode);
    console.log(
      `(d) HID decode, ${settings.decode} scans of a ${longLength}-character ticket through each decoder: HID-POS ${throughput.pos.toFixed(0)} reports/s (${throughput.posScans} scans), keyboard boot reports ${throughput.keyboard.toFixed(0)} reports/s (${throughput.keyboardScans} scans)`,
    );
    await issuer.stop();
    issuer = null;
    await core.scan(longCodes[0]!); // the kiosk learns it is offline; the measured scans know it
    const hid = await hidToVerdict(core, longCodes.slice(1), CALIBRATIONS);
    const first = hid.firstReportToVerdict;
    console.log(
      `    HID-POS first report to verdict offline, ${first.count} tickets of ${longLength} characters (${hid.reportsPerScan} reports each, back to back): p50 ${ms(first.p50)}, p99 ${ms(first.p99)}, max ${ms(first.max)}  [${[...hid.kinds].map(([k, n]) => `${k}: ${n}`).join(', ')}]`,
    );
    console.log(
      `    calibration code over HID-POS to its diagnosis, ${hid.calibration.count} reads: p50 ${ms(hid.calibration.p50)}, p99 ${ms(hid.calibration.p99)}, max ${ms(hid.calibration.max)}\n`,
    );

    // (e) the revocation list: a fresh kiosk of another event, N revocations, one sync from nothing.
    const revocation = settings.revocations > 0 ? await revocationSync(db, baseUrl, dataDir, root, port, settings.revocations) : null;

    const line = (name: string, ok: boolean, text: string) => console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${text}`);
    line('verify p99 < 5 ms', verify.p99 < GOALS.verifyP99Ms, ms(verify.p99));
    line('online p99 < 50 ms', online.p99 < GOALS.onlineP99Ms, ms(online.p99));
    line('drain ≥ 500 scans/s', rate >= GOALS.drainPerSecond && pending === 0, `${rate.toFixed(0)} scans/s`);
    line(
      `HID-POS first report to verdict (${longLength} characters, offline) p99 < 20 ms`,
      first.p99 < GOALS.hidToVerdictP99Ms,
      ms(first.p99),
    );
    if (revocation) {
      const mb = (revocation.bytes / 1024 / 1024).toFixed(2);
      line(
        `${settings.revocations} revocations sync < 2 s`,
        revocation.ms < GOALS.revocationSyncMs && revocation.complete,
        ms(revocation.ms),
      );
      line(`${settings.revocations} revocations take < 5 MB on the kiosk`, revocation.bytes < GOALS.revocationBytes, `${mb} MB`);
      const met = revocation.ms < GOALS.revocationSyncMs && revocation.complete && revocation.bytes < GOALS.revocationBytes;
      console.log(`revocation list goals ${met ? 'met' : 'NOT met'}`);
    }
  } finally {
    await core?.close();
    await issuer?.stop();
    await db.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
} else {
  void serveInThisWorker(workerData as IssuerRole);
}

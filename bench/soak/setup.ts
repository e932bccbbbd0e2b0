/**
 * Setting the venue up: the on-site issuer's data, the event and its tickets,
 * the issuer's thread, the doors on this thread and the returning kiosks'
 * thread, all enrolled; then the hour offline that fills the queues.
 */
import type { IssuerRole } from './issuer-thread.js';
import type { ReturningRole } from './returning-thread.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { addHours } from '../../issuer/time.js';
import { createEvent } from '../../issuer/admin/events.js';
import { newIdFactory } from '../../issuer/admin/ids.js';
import { issueTickets } from '../../issuer/admin/issuance.js';
import { createScannerSetup } from '../../issuer/services/scanner-setup.js';
import { loadSigningKey } from '../../issuer/signing.js';
import type { SqlDatabase } from '../../issuer/store/sql.js';
import { openSqliteDatabase } from '../../issuer/store/sqlite-database.js';
import type { EventRow } from '../../issuer/store/events.js';
import { activeKid } from '../../issuer/store/signing-keys.js';
import { KioskCore } from '../../main/kiosk/kiosk-core.js';
import { issuerFileLogger, OnsiteIssuer } from '../../main/onsite-issuer/onsite-issuer.js';
import { freePort } from '../../test/support/free-port.js';
import { MemoryApiKeys } from '../../test/support/unit/memory-api-keys.js';
import type { Door } from './doors.js';
import type { QueuedRun } from './returning-thread.js';
import type { Settings } from './settings.js';
import type { Ticket, TicketPlan } from './tickets.js';
import { rpc, startWorker } from './worker-rpc.js';

export interface Venue {
  /** A temp folder with everything: the issuer's data and log, every kiosk's SQLite file. */
  root: string;
  dataDir: string;
  logFile: string;
  baseUrl: string;
  started: Date;
  /** When the issuer was set up: two hours before the run, so its first key is valid for scans from an hour ago. */
  setUpAt: Date;
  loadBefore: number[];
}

/** What is running, so that it can be stopped whatever failed. */
export interface Running {
  issuer: Worker | null;
  returners: Worker | null;
  doors: Door[];
}

export async function prepareVenue(): Promise<Venue> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-bench-'));
  const loadBefore = os.loadavg();
  const port = await freePort();
  const baseUrl = `https://127.0.0.1:${port}`;
  const dataDir = path.join(root, 'issuer-data');
  const logFile = path.join(root, 'issuer.log');
  const started = new Date();
  // Set up two hours ago (the issuer's first key is valid from then), so scans from an hour ago verify.
  const setUpAt = addHours(started, -2);
  await new OnsiteIssuer({ dataDir, now: () => setUpAt, logger: issuerFileLogger(logFile) }).init({ name: 'Soak Festival', baseUrl });
  return { root, dataDir, logFile, baseUrl, started, setUpAt, loadBefore };
}

export interface Issued {
  db: SqlDatabase;
  event: EventRow;
  tickets: Ticket[];
  issueSeconds: number;
}

export async function issueSoakTickets(venue: Venue, ticketCount: number): Promise<Issued> {
  const { baseUrl, dataDir, started, setUpAt } = venue;
  const db = openSqliteDatabase(path.join(dataDir, 'issuer.db'));
  const event = await createEvent(
    db,
    { name: 'Soak Night', date: addHours(started, -1.5), venue: 'Harbour Hall' },
    newIdFactory(),
    setUpAt,
  );
  const issueStart = performance.now();
  const exp = Math.floor(addHours(new Date(event.ends_at), 12).getTime() / 1000);
  const issued = await issueTickets(
    db,
    {
      iss: baseUrl,
      event,
      key: loadSigningKey(path.join(dataDir, 'keys'), await activeKid(db.read)),
      nextId: newIdFactory(),
      now: setUpAt,
    },
    Array.from({ length: ticketCount }, (_, i) => ({ holderName: `Guest ${i + 1}`, ticketType: 'Standard', exp })),
  );
  const issueSeconds = (performance.now() - issueStart) / 1000;
  return { db, event, tickets: issued.map((ticket) => ({ tid: ticket.tid, qr: ticket.qr })), issueSeconds };
}

/** Starts the issuer's thread and enrolls every kiosk (the doors here, the returning ones in their thread); resolves with the seconds that took. */
export async function startAndEnroll(
  running: Running,
  venue: Venue,
  settings: Settings,
  { db, event }: Issued,
  plan: TicketPlan,
): Promise<number> {
  const { root, baseUrl } = venue;
  running.issuer = await startWorker({
    role: 'issuer',
    dataDir: venue.dataDir,
    logFile: venue.logFile,
    scannerRpm: settings.scannerRpm,
  } satisfies IssuerRole);
  const { fingerprint } = await rpc<{ fingerprint: string }>(running.issuer, 'start');
  const setup = async (): Promise<string> =>
    (await db.write((tx) => createScannerSetup(tx, baseUrl, event, { tlsCertSha256: fingerprint }, new Date()))).setup_qr;
  const enrollStart = performance.now();
  for (let i = 0; i < settings.scanners; i++) {
    const keys = new MemoryApiKeys();
    const core = new KioskCore({ dbPath: path.join(root, `door-${i + 1}.db`), apiKeys: keys });
    const name = `Door ${String(i + 1).padStart(2, '0')}`;
    await core.setScannerName(name);
    const result = await core.scan(await setup());
    if (result.type !== 'enrolled') throw new Error(`${name} did not enroll: ${JSON.stringify(result)}`);
    running.doors.push({ name, core, keys, tickets: plan.doorTickets[i]!, next: 0 });
  }
  running.returners = await startWorker({
    role: 'returning',
    offlineHours: settings.offlineHours,
    intervalS: settings.intervalS,
    kiosks: await Promise.all(
      plan.queues.map(async (queue, r) => ({
        dbPath: path.join(root, `returning-${r + 1}.db`),
        name: `Returning ${String(r + 1).padStart(2, '0')}`,
        setupCode: await setup(),
        queue: queue.map((ticket) => ticket.qr),
        live: plan.liveForReturning[r]!.map((ticket) => ticket.qr),
      })),
    ),
  } satisfies ReturningRole);
  await rpc(running.returners, 'enroll');
  return (performance.now() - enrollStart) / 1000;
}

/** An hour offline: the returning kiosks admit their queues while the issuer is stopped. */
export async function queueOffline(running: Running): Promise<QueuedRun> {
  await rpc(running.issuer!, 'stop');
  const queuedRun = await rpc<QueuedRun>(running.returners!, 'queue');
  await rpc(running.issuer!, 'start');
  return queuedRun;
}

/** Stops whatever is still running and removes the temp folder (also after a failure). */
export async function cleanUp(running: Running, venue: Venue): Promise<void> {
  for (const door of running.doors) await door.core.close().catch(() => undefined);
  if (running.returners) await running.returners.terminate();
  if (running.issuer) {
    await rpc(running.issuer, 'stop').catch(() => undefined);
    await running.issuer.terminate();
  }
  fs.rmSync(venue.root, { recursive: true, force: true });
}

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
 *
 * The phases, in bench/soak/: setup.ts (the venue, the tickets, enrollment,
 * the hour offline), doors.ts (the doors' load), returning-thread.ts (the
 * drain), checks.ts (the databases afterwards), report.ts (the figures).
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { verify, printChecks, type DoorsAfter } from './soak/checks.js';
import { DoorTraffic } from './soak/doors.js';
import { busyMeter, sleep } from './soak/measure.js';
import { printHeader, printReturn, printSetup, printSoak, type Busy } from './soak/report.js';
import type { DrainOutcome } from './soak/returning-thread.js';
import { settingsFrom, sizesOf, type Settings } from './soak/settings.js';
import { cleanUp, issueSoakTickets, prepareVenue, queueOffline, startAndEnroll, type Running } from './soak/setup.js';
import { planTickets } from './soak/tickets.js';
import { rpc } from './soak/worker-rpc.js';

interface Soak {
  seconds: number;
  busy: Busy;
  /** Every queued scan was made before this; the returning kiosks' live scans after it. */
  startedAt: string;
}

/** (a) the soak: the doors scan for `minutes`, the returning kiosks still away. */
async function runSoak(running: Running, traffic: DoorTraffic, doorsBusy: () => number, settings: Settings): Promise<Soak> {
  const soakStart = performance.now();
  const startedAt = new Date().toISOString();
  const soakEnd = soakStart + settings.minutes * 60_000;
  traffic.start(soakStart);
  await sleep(soakEnd - performance.now());
  const seconds = (performance.now() - soakStart) / 1000;
  const busy = { issuer: await rpc<number>(running.issuer!, 'busy'), doors: doorsBusy() };
  return { seconds, busy, startedAt };
}

interface Drain {
  drain: DrainOutcome;
  busy: Busy;
  doorsAfter: DoorsAfter;
}

/** (b) the return: the returning kiosks drain while the doors keep scanning; then the doors stop. */
async function runDrain(running: Running, traffic: DoorTraffic, doorsBusy: () => number): Promise<Drain> {
  traffic.phase = 'drain';
  const drain = await rpc<DrainOutcome>(running.returners!, 'drain');
  const busy = { issuer: await rpc<number>(running.issuer!, 'busy'), doors: doorsBusy() };
  await traffic.stop();
  let doubleAdmissions = 0;
  for (const door of running.doors) doubleAdmissions += (await door.core.getState()).double_admissions.length;
  const pending = (await Promise.all(running.doors.map(async (door) => (await door.core.getState()).pending_scans))).reduce(
    (a, b) => a + b,
    0,
  );
  return { drain, busy, doorsAfter: { doubleAdmissions, pending } };
}

/** Stops everything cleanly, so both sides' databases can be read. */
async function stopAll(running: Running, db: SqlDatabase): Promise<void> {
  await rpc(running.returners!, 'close');
  for (const door of running.doors.splice(0)) await door.core.close();
  await rpc(running.issuer!, 'stop');
  await db.close();
}

async function main(): Promise<void> {
  const settings = settingsFrom(process.argv.slice(2));
  const sizes = sizesOf(settings);
  const venue = await prepareVenue();
  const running: Running = { issuer: null, returners: null, doors: [] };
  try {
    const issued = await issueSoakTickets(venue, sizes.ticketCount);
    const plan = planTickets(issued.tickets, settings, sizes);
    printHeader(venue, settings);
    const enrollSeconds = await startAndEnroll(running, venue, settings, issued, plan);
    const queuedRun = await queueOffline(running);
    printSetup(settings, sizes.ticketCount, issued.issueSeconds, enrollSeconds, queuedRun);

    const traffic = new DoorTraffic(running.doors, settings.intervalS);
    const doorsBusy = busyMeter();
    await rpc(running.issuer!, 'busy');
    doorsBusy();
    const soak = await runSoak(running, traffic, doorsBusy, settings);
    const { drain, busy: drainBusy, doorsAfter } = await runDrain(running, traffic, doorsBusy);
    await stopAll(running, issued.db);

    printSoak(settings, soak.seconds, traffic, soak.busy);
    printReturn(settings, drain, traffic, drainBusy);
    const check = verify(venue.root, venue.dataDir, settings.scanners, settings.returning, soak.startedAt);
    printChecks({ settings, sizes, check, drain, traffic, doorsAfter, logBytes: fs.statSync(venue.logFile).size });
  } finally {
    await cleanUp(running, venue);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/** The soak benchmark's figures, printed as docs/benchmarks.md quotes them. */
import os from 'node:os';
import { ONSITE_SCANNER_RPM } from '../../main/onsite-issuer/onsite-issuer.js';
import { percentiles } from '../bench-kit.js';
import type { DoorTraffic } from './doors.js';
import { describe, tallyText } from './measure.js';
import type { DrainOutcome, QueuedRun } from './returning-thread.js';
import type { Venue } from './setup.js';
import { DRAIN_DEADLINE_S, ENROLL_RPM, type Settings } from './settings.js';

/** Shares of the time each thread was busy during a phase. */
export interface Busy {
  issuer: number;
  doors: number;
}

const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

export function printHeader({ started, loadBefore, baseUrl }: Venue, settings: Settings): void {
  console.log(
    `soak benchmark — ${started.toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load average before ${loadBefore.map((n) => n.toFixed(2)).join(' ')}`,
  );
  console.log(
    `issuer: main/onsite-issuer (issuer/server.ts) in a worker thread, HTTPS with its self-signed certificate on ${baseUrl}, request log at info to a file; ` +
      `scanner limit ${settings.scannerRpm ?? ONSITE_SCANNER_RPM}/min per key${settings.scannerRpm === undefined ? ' (the on-site default)' : ''}, enrollment limit ${ENROLL_RPM}/min per IP (raised: every kiosk here is 127.0.0.1)`,
  );
  console.log(
    `kiosks: ${settings.scanners} doors on the main thread and ${settings.returning} returning kiosks in a second worker thread, each a KioskCore on its own SQLite file, pinning the issuer's certificate\n`,
  );
}

export function printSetup(
  settings: Settings,
  ticketCount: number,
  issueSeconds: number,
  enrollSeconds: number,
  queuedRun: QueuedRun,
): void {
  const { scanners, returning, queued } = settings;
  console.log(
    `setup: ${ticketCount.toLocaleString('en')} tickets issued in ${issueSeconds.toFixed(1)} s; ${scanners + returning} kiosks enrolled in ${enrollSeconds.toFixed(1)} s; ` +
      `${(returning * queued).toLocaleString('en')} scans admitted offline with the issuer stopped (scanned_at over the last ${settings.offlineHours} h) in ${queuedRun.seconds.toFixed(1)} s [${tallyText(new Map(queuedRun.kinds))}]`,
  );
}

/** (a) the soak: the doors alone. */
export function printSoak(settings: Settings, soakSeconds: number, traffic: DoorTraffic, busy: Busy): void {
  const { scanners, intervalS } = settings;
  const soak = { scans: percentiles(traffic.scanTimes.soak), trips: percentiles(traffic.roundTrips.soak) };
  const offered = (scanners / intervalS).toFixed(1);
  console.log(
    `\n(a) soak: ${scanners} doors × 1 scan every ${intervalS} s for ${settings.minutes} min = ${soak.scans.count.toLocaleString('en')} scans in ${soakSeconds.toFixed(0)} s (${offered}/s offered, ${(soak.scans.count / soakSeconds).toFixed(1)}/s done)`,
  );
  console.log(`    scan-to-verdict at the door: ${describe(soak.scans)}`);
  console.log(`    check-in round trip (HTTPS, pinned): ${describe(soak.trips)}`);
  console.log(`    verdicts: ${tallyText(traffic.kinds.soak)}`);
  console.log(`    busy: issuer thread ${percent(busy.issuer)} of the time, doors' thread ${percent(busy.doors)}`);
}

/** (b) the return: the queues drain while every kiosk keeps scanning. */
export function printReturn(settings: Settings, drain: DrainOutcome, traffic: DoorTraffic, busy: Busy): void {
  const { scanners, returning, queued } = settings;
  const queuedTotal = returning * queued;
  const drainedS = drain.drainedMs.map((value) => value / 1000).sort((a, b) => a - b);
  console.log(
    `\n(b) return: ${returning} kiosks back after ${settings.offlineHours} h offline with ${queued} queued scans each (${queuedTotal.toLocaleString('en')}), draining together while every kiosk keeps scanning:`,
  );
  console.log(
    `    every queue empty after ${(drain.allDrainedMs / 1000).toFixed(2)} s (per kiosk ${drainedS[0]?.toFixed(2)} to ${drainedS.at(-1)?.toFixed(2)} s) = ${(queuedTotal / (drain.allDrainedMs / 1000)).toFixed(0)} queued scans/s; ` +
      `429 answers: ${drain.rateLimited.toLocaleString('en')}${drain.pendingLeft > 0 ? `; NOT DRAINED: ${drain.pendingLeft} left after ${DRAIN_DEADLINE_S} s` : ''}`,
  );
  console.log(`    drain check-in round trip: ${describe(percentiles(drain.drainRoundTripMs))}`);
  console.log(
    `    the ${scanners} doors meanwhile: scan-to-verdict ${describe(percentiles(traffic.scanTimes.drain))}; round trip ${describe(percentiles(traffic.roundTrips.drain))}`,
  );
  console.log(`      [${tallyText(traffic.kinds.drain)}]`);
  console.log(
    `    the ${returning} returning kiosks' own live scans: scan-to-verdict ${describe(percentiles(drain.liveScanMs))}; round trip ${describe(percentiles(drain.liveRoundTripMs))}`,
  );
  console.log(`      [${tallyText(new Map(drain.liveKinds))}]`);
  console.log(
    `    busy: issuer thread ${percent(busy.issuer)}, doors' thread ${percent(busy.doors)}, returning kiosks' thread ${percent(drain.busy)}`,
  );
}

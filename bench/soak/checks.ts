/**
 * The checks after the run, against both sides' databases once everything
 * closed: nothing lost, no ticket admitted twice by the issuer, every offline
 * double admission found, every queue drained.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { DoorTraffic } from './doors.js';
import { tally, tallyText } from './measure.js';
import type { DrainOutcome } from './returning-thread.js';
import type { Settings, Sizes } from './settings.js';

export interface Verification {
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
export function verify(root: string, dataDir: string, scanners: number, returning: number, queuedBefore: string): Verification {
  const files = [
    ...Array.from({ length: scanners }, (_, i) => `door-${i + 1}.db`),
    ...Array.from({ length: returning }, (_, r) => `returning-${r + 1}.db`),
  ];
  const scans: { key: string; tid: string; state: string; result: string | null; scannedAt: string; returning: boolean }[] = [];
  for (const file of files) {
    const kiosk = new Database(path.join(root, file), { readonly: true });
    try {
      const rows = kiosk
        .prepare('SELECT idempotency_key AS key, tid, queue_state AS state, result_status AS result, scanned_at AS scannedAt FROM scans')
        .all() as Omit<(typeof scans)[number], 'returning'>[];
      for (const row of rows) scans.push({ ...row, returning: file.startsWith('returning') });
    } finally {
      kiosk.close();
    }
  }
  const issuer = new Database(path.join(dataDir, 'issuer.db'), { readonly: true });
  try {
    const answers = new Map<string, { status: string | null; tid: string | null }>();
    for (const row of issuer
      .prepare(
        `SELECT idempotency_key AS key, json_extract(response_body, '$.status') AS status, json_extract(response_body, '$.ticket.tid') AS tid FROM idempotency`,
      )
      .all() as { key: string; status: string | null; tid: string | null }[]) {
      answers.set(row.key, { status: row.status, tid: row.tid });
    }
    const checkins = issuer.prepare('SELECT tid, idempotency_key AS key FROM checkins').all() as { tid: string; key: string }[];
    const validByTid = new Map<string, number>();
    for (const answer of answers.values())
      if (answer.status === 'valid' && answer.tid) validByTid.set(answer.tid, (validByTid.get(answer.tid) ?? 0) + 1);
    const checkinTids = new Set(checkins.map((row) => row.tid));
    const queuedAnswers = new Map<string, number>();
    for (const scan of scans)
      if (scan.returning && scan.scannedAt < queuedBefore)
        tally(queuedAnswers, scan.state === 'done' ? (scan.result ?? 'none') : scan.state);
    return {
      kioskScans: scans.length,
      unanswered: scans.filter((scan) => scan.state !== 'done' || scan.result === null).length,
      missingAtIssuer: scans.filter((scan) => !answers.has(scan.key)).length,
      checkins: checkins.length,
      duplicateCheckins: checkins.length - checkinTids.size,
      ticketsWithTwoValid: [...validByTid.values()].filter((n) => n > 1).length,
      validWithoutCheckin: [...validByTid.keys()].filter((tid) => !checkinTids.has(tid)).length,
      checkinWithoutValid: checkins.filter((row) => answers.get(row.key)?.status !== 'valid' || answers.get(row.key)?.tid !== row.tid)
        .length,
      queuedAnswers,
    };
  } finally {
    issuer.close();
  }
}

/** What the doors left behind after they stopped. */
export interface DoorsAfter {
  doubleAdmissions: number;
  pending: number;
}

export interface ChecksInput {
  settings: Settings;
  sizes: Sizes;
  check: Verification;
  drain: DrainOutcome;
  traffic: DoorTraffic;
  doorsAfter: DoorsAfter;
  logBytes: number;
}

export function printChecks({ settings, sizes, check, drain, traffic, doorsAfter, logBytes }: ChecksInput): void {
  const { scanners, returning } = settings;
  const { soakDuplicates, sharedEach } = sizes;
  const expectedDoubles = returning * soakDuplicates + returning * sharedEach;
  console.log(
    `    issuer's answers to the queued scans: ${tallyText(check.queuedAnswers)}; double admissions reported by the returning kiosks: ${drain.doubleAdmissions} ` +
      `(expected ${expectedDoubles}: ${returning * soakDuplicates} tickets also used at a door, ${returning * sharedEach} admitted offline at two kiosks), by the doors: ${doorsAfter.doubleAdmissions}`,
  );
  console.log(
    `    door re-entry attempts: ${traffic.reentries}; doors out of tickets: ${traffic.ranOut}; issuer log ${(logBytes / 1e6).toFixed(1)} MB\n`,
  );

  const line = (ok: boolean, text: string): void => console.log(`${ok ? 'PASS' : 'FAIL'}  ${text}`);
  line(
    check.unanswered === 0 && check.missingAtIssuer === 0 && doorsAfter.pending === 0 && drain.pendingLeft === 0,
    `nothing lost: all ${check.kioskScans.toLocaleString('en')} scans of all ${scanners + returning} kiosks have the issuer's answer on the kiosk (${check.unanswered} without) and a stored answer at the issuer (${check.missingAtIssuer} missing)`,
  );
  line(
    check.duplicateCheckins === 0 && check.ticketsWithTwoValid === 0 && check.validWithoutCheckin === 0 && check.checkinWithoutValid === 0,
    `no ticket admitted twice by the issuer: ${check.checkins.toLocaleString('en')} check-in rows, one per ticket answered valid (tickets with two valid answers: ${check.ticketsWithTwoValid}, valid without a check-in row: ${check.validWithoutCheckin}, check-ins without a valid answer: ${check.checkinWithoutValid})`,
  );
  line(drain.doubleAdmissions === expectedDoubles, `every offline double admission found: ${drain.doubleAdmissions} of ${expectedDoubles}`);
  line(drain.pendingLeft === 0, `every queue drained (${drain.pendingLeft} scans left)`);
  if (traffic.rateLimited > 0) console.log(`note: the doors got ${traffic.rateLimited} answers 429`);
}

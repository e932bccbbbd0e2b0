/** The soak benchmark's options, its fixed figures, and the sizes they lead to. */
import { DEFAULT_SCANNER_RPM } from '../../issuer/services/rate-limits.js';
import { numberOption } from '../bench-kit.js';

export interface Settings {
  minutes: number;
  scanners: number;
  intervalS: number;
  returning: number;
  queued: number;
  offlineHours: number;
  scannerRpm: number | undefined;
}

export const ENROLL_RPM = 1000;
/** Every n-th door scan is a ticket another door admitted. */
export const REENTRY_EVERY = 25;
const SOAK_DUPLICATE_SHARE = 0.05;
const SHARED_DUPLICATE_SHARE = 0.05;
/** The drain is given at most this long; the doors have tickets for it. */
export const DRAIN_DEADLINE_S = 600;
export const POLL_MS = 50;

export function settingsFrom(argv: readonly string[]): Settings {
  const value = (flag: string, fallback: number, max: number, integer = true): number =>
    numberOption(argv, flag, fallback, { max, fraction: !integer });
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

/** How many scans and tickets the settings call for. */
export interface Sizes {
  scansPerDoor: number;
  drainScansPerDoor: number;
  /** Tickets in each returning kiosk's queue that a door checked in online during the soak. */
  soakDuplicates: number;
  /** Tickets each returning kiosk shares with the next one (both admit them offline). */
  sharedEach: number;
  uniqueQueued: number;
  ticketCount: number;
}

export function sizesOf(settings: Settings): Sizes {
  const { scanners, returning, queued, intervalS } = settings;
  const scansPerDoor = Math.ceil((settings.minutes * 60) / intervalS);
  const drainScansPerDoor = Math.ceil(DRAIN_DEADLINE_S / intervalS);
  const soakDuplicates = Math.round(queued * SOAK_DUPLICATE_SHARE);
  const sharedEach = returning >= 2 ? Math.round((queued * SHARED_DUPLICATE_SHARE) / 2) : 0;
  const uniqueQueued = queued - soakDuplicates - 2 * sharedEach;
  if (uniqueQueued < 0) throw new Error('--queued is too small');
  if (returning * soakDuplicates > scanners * Math.min(scansPerDoor, REENTRY_EVERY - 1))
    throw new Error('the soak is too short for the duplicates in the queues: raise --minutes');
  const ticketCount = scanners * (scansPerDoor + drainScansPerDoor) + returning * (uniqueQueued + sharedEach + drainScansPerDoor);
  return { scansPerDoor, drainScansPerDoor, soakDuplicates, sharedEach, uniqueQueued, ticketCount };
}

/**
 * One door scenario for the kiosk's end-to-end tests: a fresh issuer data dir made with the built CLI (`init`,
 * one event), `serve --plain-http` on a free loopback port, and kiosk doors (test/support/door-harness.ts
 * openKioskDoor) that each keep their data dir and keyring service apart. Every e2e test of a door feature starts
 * this way; the scenario holds what they shared by copy before (the data dirs, the event's id, issuing a ticket,
 * reading a door's kiosk.db, enrolling a door, cleaning up).
 *
 * Playwright-free (like door-harness.ts), so a benchmark could use it too.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import {
  closeKioskDoors,
  issuerCli,
  LOOPBACK,
  openKioskDoor,
  requireBuild,
  ROOT,
  scanInPage,
  startIssuer,
  type KioskDoor,
  type KioskDoorOptions,
  type RunningIssuer,
} from './door-harness.js';
import { freePort } from './free-port.js';

/** Where every e2e test writes its screenshots (kept with the run's results). */
export const E2E_SHOTS = join(ROOT, 'test-results', 'e2e');
/** Where docs/kiosk-screens.md finds them: written only with UPDATE_SCREENSHOTS=1, so a run never changes committed files. */
export const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');
/** A page's waits: generous, two shared cores run the issuer, the kiosk, Chromium and the test. */
export const DOOR_WAIT_MS = 30_000;

export interface IssuedTicket {
  tid: string;
  qr: string;
}

export interface DoorScenarioOptions {
  /** Names the temporary folder and the doors' keyring services, e.g. "party". */
  name: string;
  /** The event's name. */
  eventName: string;
  /** More `event create` options, e.g. `['--entry', 'reentry']`. */
  eventOptions?: readonly string[];
}

/** A repeat-read window short enough that a test's rescan need not wait (docs/kiosk.md "Double reads"). */
export const SHORT_REPEAT_WINDOW_MS = 300;

export interface DoorOptions {
  /** docs/kiosk.md "Double reads"; the runtime's default when absent. */
  repeatReadWindowMs?: number;
  core?: KioskDoorOptions['core'];
}

export interface DoorScenario {
  readonly root: string;
  readonly issuerDir: string;
  readonly port: number;
  /** The issuer's base URL. */
  readonly base: string;
  readonly eid: string;
  readonly doors: readonly KioskDoor[];
  /** Every page error of every door: a test ends by expecting none. */
  readonly pageErrors: string[];
  /** The built admin CLI on this issuer's data dir, with --json. */
  cli<T = unknown>(...args: string[]): Promise<T>;
  /** `ticket issue` of one ticket for this event. */
  issue(holder: string, ...options: string[]): Promise<IssuedTicket>;
  /** The issuer's status of a ticket (`ticket show`). */
  ticketStatus(tid: string): Promise<string>;
  /** Starts `serve` (once). */
  startIssuer(): Promise<RunningIssuer>;
  /** Stops `serve`: the doors' issuer is unreachable until startIssuer again. */
  stopIssuer(): Promise<void>;
  /** A kiosk behind the web host with its page open in `browser`, its data in `<root>/<name>`. */
  openDoor(browser: Browser, name: string, options?: DoorOptions): Promise<KioskDoor>;
  /** Scans a fresh setup code (`scanner setup` with `setupOptions`) on a door at Setup; waits for Ready online. */
  enroll(door: KioskDoor, ...setupOptions: string[]): Promise<void>;
  /** Reads the kiosk.db of the door opened as `name`, read-only. */
  kioskDb<T>(name: string, read: (db: Database.Database) => T): T;
  /** Closes every door and the issuer, removes the keyring entries and the folder. */
  close(): Promise<void>;
}

/** Throws, saying what to do, outside a D-Bus session with a keyring (the kiosk keeps its API key there). */
export function requireKeyringSession(): void {
  if (!process.env['DBUS_SESSION_BUS_ADDRESS'])
    throw new Error('Run the e2e tests inside scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring)');
}

/** Copies a screenshot taken into E2E_SHOTS to docs/screenshots/ under `docName`, only with UPDATE_SCREENSHOTS=1. */
export function publishScreenshot(file: string, docName: string): void {
  if (process.env['UPDATE_SCREENSHOTS'] === '1') copyFileSync(file, join(DOC_SHOTS, docName));
}

/** Makes the issuer and its event (two hours ahead, at "Hall"); nothing listens until startIssuer. */
export async function createDoorScenario(options: DoorScenarioOptions): Promise<DoorScenario> {
  requireKeyringSession();
  requireBuild();
  mkdirSync(E2E_SHOTS, { recursive: true });
  const root = mkdtempSync(join(tmpdir(), `${options.name}-e2e-`));
  const issuerDir = join(root, 'issuer');
  const port = await freePort();
  const base = `http://${LOOPBACK}:${port}`;
  const cli = <T = unknown>(...args: string[]): Promise<T> => issuerCli<T>(issuerDir, ...args);
  await cli('init', '--base-url', base, '--name', 'E2E Events');
  const start = new Date(Date.now() + 2 * 3_600_000).toISOString();
  const created = await cli<{ eid: string }>(
    'event',
    'create',
    '--name',
    options.eventName,
    '--date',
    start,
    '--venue',
    'Hall',
    ...(options.eventOptions ?? []),
  );
  const eid = created.eid;
  const doors: KioskDoor[] = [];
  const pageErrors: string[] = [];
  let issuer: RunningIssuer | null = null;

  return {
    root,
    issuerDir,
    port,
    base,
    eid,
    doors,
    pageErrors,
    cli,
    async issue(holder, ...issueOptions) {
      const issued = await cli<{ tickets: IssuedTicket[] }>('ticket', 'issue', '--event', eid, '--holder', holder, ...issueOptions);
      return issued.tickets[0]!;
    },
    async ticketStatus(tid) {
      return (await cli<{ status: string }>('ticket', 'show', tid)).status;
    },
    async startIssuer() {
      issuer ??= await startIssuer(issuerDir, port);
      return issuer;
    },
    async stopIssuer() {
      await issuer?.stop();
      issuer = null;
    },
    async openDoor(browser, name, doorOptions = {}) {
      const door = await openKioskDoor(browser, {
        dataDir: join(root, name),
        keyringService: `ticket-kiosk-e2e-${options.name}-${name}-${process.pid}`,
        waitMs: DOOR_WAIT_MS,
        onPageError: (error) => pageErrors.push(error),
        ...(doorOptions.repeatReadWindowMs === undefined ? {} : { repeatReadWindowMs: doorOptions.repeatReadWindowMs }),
        ...(doorOptions.core === undefined ? {} : { core: doorOptions.core }),
      });
      doors.push(door);
      return door;
    },
    async enroll(door, ...setupOptions) {
      const { setup_qr } = await cli<{ setup_qr: string }>('scanner', 'setup', '--event', eid, ...setupOptions);
      await door.page.waitForSelector('#screen[data-screen="setup"]');
      await scanInPage(door.page, setup_qr);
      await door.page.waitForSelector('#screen[data-screen="ready"] [data-connection="online"]');
    },
    kioskDb(name, read) {
      const db = new Database(join(root, name, 'kiosk.db'), { readonly: true });
      try {
        return read(db);
      } finally {
        db.close();
      }
    },
    async close() {
      for (const door of doors) await door.page.close().catch(() => undefined);
      await closeKioskDoors(doors);
      await issuer?.stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

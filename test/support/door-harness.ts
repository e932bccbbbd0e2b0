/**
 * The door as the end-to-end test (test/e2e/door.e2e.test.ts) and the browser
 * benchmark (bench/e2e-bench.ts) both run it: the built `ticket-issuer` CLI as
 * an organiser runs it, `ticket-issuer serve --plain-http` as a child process
 * on loopback, headless Chromium, and a scan sent the way a keyboard-wedge
 * scanner sends it.
 *
 * The tests import it from source; the benchmark imports it too, so tsc
 * compiles it into dist/test/support/ (and it must not import vitest). Works
 * from both places: the project root is found by walking up to package.json.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startKioskRuntime, type KioskRuntime, type KioskRuntimeOptions } from '../../main/host/kiosk-runtime.js';
import { KeychainApiKeyStore } from '../../main/kiosk/store/api-key-store.js';
import { startWebHost, type WebHost } from '../../main/web-host/server.js';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The project root (where package.json is), from test/support/ or dist/test/support/ alike. */
export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const ISSUER_CLI = join(ROOT, 'dist', 'issuer', 'cli.js');
export const RENDERER_DIR = join(ROOT, 'dist', 'kiosk-page');
export const LOOPBACK = '127.0.0.1';
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Generous: two shared cores, a browser, an issuer and the caller itself. */
export const ISSUER_START_WAIT_MS = 30_000;

const run = promisify(execFile);

/** Throws, saying what to do, when the built issuer CLI or screens are missing. */
export function requireBuild(): void {
  for (const file of [ISSUER_CLI, join(RENDERER_DIR, 'index.html')]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`);
  }
}

/** The built admin CLI, as an organiser runs it, with --json. */
export async function issuerCli<T = unknown>(dataDir: string, ...args: string[]): Promise<T> {
  // Large enough for `ticket issue --count` of a few thousand tickets in one answer.
  const { stdout } = await run(process.execPath, [ISSUER_CLI, ...args, '--data', dataDir, '--json'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}

/** A port nobody listens on right now (on loopback); re-exported for the e2e tests. */
export interface RunningIssuer {
  child: ChildProcess;
  exited: Promise<unknown>;
  /** SIGTERM, then waits for the exit: afterwards the port refuses connections. */
  stop(): Promise<void>;
}

/** `ticket-issuer serve --plain-http` on a fixed port (a kiosk is enrolled with that base URL), once it answers. */
export async function startIssuer(dataDir: string, port: number, waitMs = ISSUER_START_WAIT_MS): Promise<RunningIssuer> {
  const child = spawn(
    process.execPath,
    [ISSUER_CLI, 'serve', '--plain-http', '--host', LOOPBACK, '--port', String(port), '--data', dataDir],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4000)));
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  const until = Date.now() + waitMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the issuer exited at start:\n${log}`);
    const ok = await fetch(`http://${LOOPBACK}:${port}/.well-known/ticket-issuer.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) {
      child.kill('SIGTERM');
      throw new Error(`the issuer did not answer within ${waitMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Opens the browser host's page as a user does: a one-time launch URL, which
 * the host trades for a session cookie and a redirect to its plain URL
 * (docs/kiosk.md, "The browser host"). Never puts the token in an error.
 */
export async function openKioskPage(page: Page, host: { url: string; launchUrl(): string }): Promise<void> {
  const response = await page.goto(host.launchUrl());
  if (page.url() !== host.url || !response?.ok()) {
    throw new Error(
      `the kiosk page did not open from its launch URL (HTTP ${response?.status() ?? 'none'}, at ${new URL(page.url()).pathname})`,
    );
  }
}

/** Headless Chromium from the system package, with the project's usual flags. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Like a wedge scanner: one burst of keydown events ending with Enter, dispatched inside the page.
 * Keys sent over CDP (page.keyboard.type) are timestamped as each command arrives, and on a loaded
 * machine the gaps split the burst (docs/kiosk-screens.md "Keyboard-wedge scanners", its testing note); a scanner's keys come
 * back to back. An event's timeStamp is its creation time, so the characters are all created
 * first, then dispatched: the OS pausing the page while they are handled cannot put a gap into
 * the burst (a real key also keeps the time it arrived, however late the page handles it).
 * The Enter is created when it is sent, so its timeStamp is the scan's last keystroke.
 */
export async function scanInPage(page: Page, text: string): Promise<void> {
  await page.evaluate((t) => {
    const keys = [...t].map((key) => new KeyboardEvent('keydown', { key, bubbles: true }));
    for (const event of keys) document.dispatchEvent(event);
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  }, text);
}

/** The page's DOM as the functions passed to page.evaluate see it (the Node build has no DOM lib). */
declare const document: { dispatchEvent(event: unknown): boolean };
declare class KeyboardEvent {
  constructor(type: string, init: { key: string; bubbles: boolean });
}

/** A kiosk as the door runs it: the runtime (core, keyring), the web host, and its page in Chromium. */
export interface KioskDoor {
  runtime: KioskRuntime;
  host: WebHost;
  page: Page;
  keyringService: string;
}

export interface KioskDoorOptions {
  /** The kiosk's data dir. */
  dataDir: string;
  /** A keyring service of the test's own, removed by closeKioskDoors. */
  keyringService: string;
  /** docs/kiosk.md "Double reads"; the runtime's default when absent. */
  repeatReadWindowMs?: number;
  /** The page's default timeout for waits. */
  waitMs: number;
  /** Errors the page throws, for the test to assert there were none. */
  onPageError: (error: string) => void;
  /** Anything else the core accepts (e.g. its clock, `now`). */
  core?: KioskRuntimeOptions['core'];
}

/** Starts a kiosk runtime behind the web host (HID scanners off) and opens its page, signed in through a launch URL. */
export async function openKioskDoor(browser: Browser, options: KioskDoorOptions): Promise<KioskDoor> {
  const runtime = await startKioskRuntime({
    dataDir: options.dataDir,
    keyringService: options.keyringService,
    hidScanners: false,
    ...(options.repeatReadWindowMs === undefined ? {} : { repeatReadWindowMs: options.repeatReadWindowMs }),
    ...(options.core === undefined ? {} : { core: options.core }),
    log: () => undefined,
  });
  const host = await startWebHost({ core: runtime.core, host: LOOPBACK, port: 0, rendererDir: RENDERER_DIR, log: () => undefined });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  page.setDefaultTimeout(options.waitMs);
  page.on('pageerror', (error) => options.onPageError(String(error)));
  await openKioskPage(page, host);
  return { runtime, host, page, keyringService: options.keyringService };
}

/** Stops each door's host and runtime and removes its keyring entries (its keyring service is its own). */
export async function closeKioskDoors(doors: readonly KioskDoor[]): Promise<void> {
  for (const door of doors) {
    await door.host.close().catch(() => undefined);
    await door.runtime.close().catch(() => undefined);
    await new KeychainApiKeyStore({ serviceName: door.keyringService }).secrets.deleteAll().catch(() => undefined);
  }
}

/**
 * Locks staff functions from the kiosk's side, as its idle timer does, and waits until the page has heard (its
 * state push): a tap made before that would still find the staff menu open.
 */
export async function lockStaffFromKiosk(door: KioskDoor): Promise<void> {
  await door.runtime.core.lockStaff();
  await door.page.waitForSelector('[data-staff-dialog][data-staff-open="false"]', { state: 'attached' });
}

/** Types the staff PIN into the unlock dialog (docs/kiosk.md "Staff PIN") once it takes input. */
export async function enterStaffPin(page: Page, pin: string): Promise<void> {
  await page.waitForSelector('[data-staff-dialog][data-staff-mode="unlock"] [data-staff-pin-input]:not([disabled])');
  await page.fill('[data-staff-pin-input]', pin);
  await page.click('[data-action="staff-unlock"]');
}

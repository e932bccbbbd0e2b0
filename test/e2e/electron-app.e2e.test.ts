/**
 * The real app in Electron: the built main process (dist/main/electron/main.js, what `npm start` runs)
 * launched with Playwright's Electron support, its one window on the kiosk page (kiosk://app/, docs/kiosk.md
 * "Packaging"). A fresh data dir, so the page shows Setup; a kiosk enrolled before would show Ready.
 *
 * It needs the Electron binary. The electron package fetches it on its first launch (its index.js, which
 * `require('electron')` runs), which needs the network: where it is not installed this test is skipped and
 * says why, and nothing here calls that download.
 *   scripts/with-keyring.sh npx playwright test --project electron
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { APP_PAGE_URL } from '../../main/electron/app-scheme.js';
import { requireBuild, ROOT } from '../support/door-harness.js';

const MAIN = join(ROOT, 'dist', 'main', 'electron', 'main.js');
/** Generous: two shared cores, and Electron starting the kiosk runtime. */
const WAIT_MS = 60_000;

/** The binary the electron package runs (its path.txt under its dist/, or ELECTRON_OVERRIDE_DIST_PATH), or why there is none. */
function electronBinary(): { path: string } | { missing: string } {
  const packageDir = join(ROOT, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return { missing: `${pathFile} is missing` };
  const binary = join(process.env['ELECTRON_OVERRIDE_DIST_PATH'] ?? join(packageDir, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? { path: binary } : { missing: `${binary} is missing` };
}

let app: ElectronApplication | null = null;
let window: Page | null = null;
let dataHome: string | null = null;

test.afterEach(async () => {
  // The Electron window is no page of the test's browser: its screenshot and trace are kept here, on failure only.
  const testInfo = test.info();
  const failed = testInfo.status !== testInfo.expectedStatus;
  if (failed && window) {
    const screenshot = testInfo.outputPath('electron-window.png');
    if (
      await window.screenshot({ path: screenshot }).then(
        () => true,
        () => false,
      )
    )
      await testInfo.attach('screenshot', { path: screenshot, contentType: 'image/png' });
  }
  const trace = testInfo.outputPath('trace.zip');
  await app
    ?.context()
    .tracing.stop(failed ? { path: trace } : {})
    .catch(() => undefined);
  if (failed && existsSync(trace)) await testInfo.attach('trace', { path: trace, contentType: 'application/zip' });
  await app?.close().catch(() => undefined);
  window = null;
  app = null;
  if (dataHome) rmSync(dataHome, { recursive: true, force: true });
  dataHome = null;
});

test('the app opens one window on the kiosk page, on its Setup or Ready screen', async () => {
  test.setTimeout(120_000);
  const binary = electronBinary();
  if ('missing' in binary) {
    const reason = `no Electron binary (${binary.missing}): the electron package downloads it on first launch, which needs the network; node node_modules/electron/install.js fetches it`;
    console.log(`electron project skipped: ${reason}`);
    test.skip(true, reason);
    return;
  }
  requireBuild();
  // app.getPath('userData') is under XDG_CONFIG_HOME on Linux: a data dir of this test's own, so the page shows Setup.
  dataHome = mkdtempSync(join(tmpdir(), 'electron-e2e-'));
  const headless = !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY'];
  app = await electron.launch({
    executablePath: binary.path,
    args: [
      // Chromium refuses to run as root with its sandbox (CI runs as root); elsewhere the app's own sandbox stays on.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      // No X server or Wayland (a CI container): Chromium's headless platform.
      ...(headless ? ['--ozone-platform=headless'] : []),
      MAIN,
      '--no-hid',
      '--no-lan',
    ],
    env: { ...process.env, XDG_CONFIG_HOME: dataHome, TICKET_KIOSK_LAN: 'off' },
    timeout: WAIT_MS,
  });
  await app.context().tracing.start({ screenshots: true, snapshots: true });
  window = await app.firstWindow({ timeout: WAIT_MS });
  await window.waitForSelector('#screen[data-screen="setup"], #screen[data-screen="ready"]', { timeout: WAIT_MS });
  expect(window.url()).toBe(APP_PAGE_URL);
  expect(['setup', 'ready']).toContain(await window.getAttribute('#screen', 'data-screen'));
  expect(app.windows()).toHaveLength(1);
});

/**
 * The browser end-to-end tests (test/e2e/) on @playwright/test: `npm run test:e2e`, inside
 * scripts/with-keyring.sh (the kiosk keeps its API key in the OS keyring).
 *
 * - chromium: the system's Chromium with the flags every browser test here uses (test/support/door-harness.ts).
 * - electron: the real app (dist/main/electron/main.js) in Electron, when its binary is installed; skipped,
 *   saying why, when it is not (test/e2e/electron-app.e2e.test.ts).
 *
 * A failing test keeps its trace and a screenshot of every open page in test-results/playwright/<test>/
 * (`npx playwright show-trace test-results/playwright/<test>/trace.zip`); the HTML report is written to
 * test-results/playwright-report/ (`npx playwright show-report test-results/playwright-report`).
 */
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/support/door-harness.js';

const ELECTRON_TEST = 'electron-app.e2e.test.ts';

// No kiosk a test starts through a host (ticket-kiosk web, the Electron shell) multicasts onto the
// machine's network (docs/kiosk.md "Kiosks on one LAN"); the LAN tests use loopback peers explicitly.
// Set here, so the runner and every worker it starts have it.
process.env['TICKET_KIOSK_LAN'] = 'off';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.test.ts',
  outputDir: 'test-results/playwright',
  // Builds once before any test runs (`npm run build`), as vitest does; skipped when scripts/test-suite.mjs built already.
  globalSetup: './test/global-setup.ts',
  // One file at a time. Two overlapped well on the 2-core machine (2.7-3 min against about 5), but the wedge
  // typing tests need key events delivered as a scanner types them, 80 ms apart at most, and with another file's
  // kiosks and issuer busy beside them a clean-clone run saw 258 ms gaps three times over and failed
  // (test/support/cdp-keyboard.ts gives up after three tries). `--workers 2` runs two files at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env['CI']),
  // Per test and per hook, as vitest's testTimeout and hookTimeout; files that need longer say so.
  timeout: 30_000,
  reporter: [['list'], ['html', { outputFolder: 'test-results/playwright-report', open: 'never' }]],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    // Playwright's own default outside the test runner (which would wait without limit): what the tests had under vitest.
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: `**/${ELECTRON_TEST}`,
      use: { browserName: 'chromium', launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } },
    },
    { name: 'electron', testMatch: `**/${ELECTRON_TEST}` },
  ],
});

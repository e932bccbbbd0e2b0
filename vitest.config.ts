import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser end-to-end tests run on @playwright/test (playwright.config.ts, `npm run test:e2e`).
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
    // Build once before any test file runs (see test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real servers and child processes on a shared 2-core machine.
    testTimeout: 30_000,
    // No kiosk a test starts through a host (ticket-kiosk web, the Electron shell) multicasts onto the
    // machine's network (docs/kiosk.md "Kiosks on one LAN"); the LAN tests use loopback peers explicitly.
    env: { TICKET_KIOSK_LAN: 'off' },
    hookTimeout: 30_000,
  },
});

/**
 * The dashboard end-to-end tests' common start, as a Playwright fixture (`dashboardTest`): a fresh folder, an
 * issuer made by the built CLI with an admin token and one event (an hour from now), `serve` on loopback, a
 * scanner enrolled through the public API, and the dashboard signed in, in real Chromium, with its page errors
 * collected. Whatever a test started is stopped, and its folder removed, when the test ends.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContextOptions, type Page } from '@playwright/test';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { issuerCli, LOOPBACK, ROOT, startIssuer, type RunningIssuer } from './door-harness.js';
import { freePort } from './free-port.js';

/** How long a dashboard test waits for a page or an answer. */
export const DASHBOARD_WAIT_MS = 30_000;

/** Polls until the read value matches, for up to DASHBOARD_WAIT_MS. */
export const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: DASHBOARD_WAIT_MS, intervals: [100] });

export interface DashboardIssuer {
  dataDir: string;
  port: number;
  baseUrl: string;
  adminToken: string;
  eid: string;
}

export interface EnrolledScanner {
  apiKey: string;
  apiKeyId: string;
  scannerId: string;
}

export interface Dashboard {
  /** This test's own folder (the issuer's data dir is `issuer` in it), removed when the test ends. */
  readonly root: string;
  /** What the dashboard's page logged as errors since `signIn`. */
  readonly pageErrors: string[];
  /** `init`, `admin-token reset` and `event create` (an hour from now unless `startsAt`); not started yet. */
  create(names: { issuer: string; event: string; venue: string; startsAt?: Date }): Promise<DashboardIssuer>;
  /** `serve` for the issuer `create` made, stopped when the test ends. */
  start(): Promise<RunningIssuer>;
  /** Enrols a scanner with a setup code from `scanner setup` (and its name and platform, if given). */
  enroll(setupQr: string, scanner?: { name?: string; platform?: string }): Promise<EnrolledScanner>;
  /** A page on the dashboard (in a browser context of its own, with `options` if given: a time zone, say), signed in with the admin token, closed when the test ends. */
  signIn(options?: BrowserContextOptions): Promise<Page>;
  /** Runs `stop` when the test ends, before the issuer stops (a webhook receiver, say). */
  onEnd(stop: () => Promise<unknown>): void;
}

export const dashboardTest = test.extend<{ dashboard: Dashboard }>({
  dashboard: async ({ browser }, use, testInfo) => {
    testInfo.setTimeout(180_000);
    if (!existsSync(join(ROOT, 'dist', 'dashboard', 'index.html'))) throw new Error('dist/dashboard is missing: run npm run build first');
    const root = mkdtempSync(join(tmpdir(), 'dashboard-e2e-'));
    const pageErrors: string[] = [];
    const atEnd: (() => Promise<unknown>)[] = [];
    let made: DashboardIssuer | null = null;
    const issuer = (): DashboardIssuer => {
      if (made === null) throw new Error('dashboard.create() first');
      return made;
    };
    let running: RunningIssuer | null = null;
    await use({
      root,
      pageErrors,
      async create(names) {
        const dataDir = join(root, 'issuer');
        const port = await freePort();
        const baseUrl = `http://${LOOPBACK}:${port}`;
        await issuerCli(dataDir, 'init', '--base-url', baseUrl, '--name', names.issuer);
        const { admin_token: adminToken } = await issuerCli<{ admin_token: string }>(dataDir, 'admin-token', 'reset');
        const startsAt = (names.startsAt ?? new Date(Date.now() + 3600_000)).toISOString();
        const { eid } = await issuerCli<{ eid: string }>(
          dataDir,
          'event',
          'create',
          '--name',
          names.event,
          '--date',
          startsAt,
          '--venue',
          names.venue,
        );
        made = { dataDir, port, baseUrl, adminToken, eid };
        return made;
      },
      async start() {
        running = await startIssuer(issuer().dataDir, issuer().port);
        return running;
      },
      async enroll(setupQr, scanner = {}) {
        const scannerId = randomUUID();
        const response = await fetch(`${issuer().baseUrl}/api/v1/scanners/enroll`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            token: decodeSetupCode(setupQr).token,
            scanner_id: scannerId,
            scanner_name: scanner.name,
            scanner_platform: scanner.platform,
          }),
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { api_key: string; api_key_id: string };
        return { apiKey: body.api_key, apiKeyId: body.api_key_id, scannerId };
      },
      async signIn(options) {
        const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, ...options });
        atEnd.unshift(() => context.close());
        const page = await context.newPage();
        page.setDefaultTimeout(DASHBOARD_WAIT_MS);
        page.on('pageerror', (error) => pageErrors.push(String(error)));
        page.on('console', (message) => {
          if (message.type() === 'error') pageErrors.push(message.text());
        });
        await page.goto(`${issuer().baseUrl}/admin`);
        await page.fill('#admin-token', issuer().adminToken);
        await page.click('button[type=submit]');
        return page;
      },
      onEnd(stop) {
        atEnd.push(stop);
      },
    });
    for (const stop of atEnd) await stop().catch(() => undefined);
    await (running as RunningIssuer | null)?.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  },
});

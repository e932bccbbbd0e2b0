/**
 * The dashboard end-to-end tests' common start: an issuer made by the built CLI with an admin token and one event
 * (an hour from now), and the dashboard signed in, in real Chromium, with its page errors collected.
 */
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { issuerCli, LOOPBACK } from './door-harness.js';
import { freePort } from './free-port.js';

export interface DashboardIssuer {
  dataDir: string;
  port: number;
  baseUrl: string;
  adminToken: string;
  eid: string;
}

/** `init`, `admin-token reset` and `event create` (an hour from now unless `startsAt`) in `root`/issuer; the issuer is not started yet. */
export async function dashboardIssuer(
  root: string,
  names: { issuer: string; event: string; venue: string; startsAt?: Date },
): Promise<DashboardIssuer> {
  const dataDir = join(root, 'issuer');
  const port = await freePort();
  const baseUrl = `http://${LOOPBACK}:${port}`;
  await issuerCli(dataDir, 'init', '--base-url', baseUrl, '--name', names.issuer);
  const { admin_token: adminToken } = await issuerCli<{ admin_token: string }>(dataDir, 'admin-token', 'reset');
  const { eid } = await issuerCli<{ eid: string }>(
    dataDir,
    'event',
    'create',
    '--name',
    names.event,
    '--date',
    (names.startsAt ?? new Date(Date.now() + 3600_000)).toISOString(),
    '--venue',
    names.venue,
  );
  return { dataDir, port, baseUrl, adminToken, eid };
}

/** A page on the issuer's dashboard, signed in with the admin token; its errors go to `pageErrors`. */
export async function signedInDashboard(
  browser: Browser,
  issuer: Pick<DashboardIssuer, 'baseUrl' | 'adminToken'>,
  pageErrors: string[],
  waitMs: number,
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.setDefaultTimeout(waitMs);
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(`${issuer.baseUrl}/admin`);
  await page.fill('#admin-token', issuer.adminToken);
  await page.click('button[type=submit]');
  return page;
}

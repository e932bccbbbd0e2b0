/**
 * The charts end to end (docs/issuer.md "Arrivals chart" and "After-event report"), in real Chromium:
 * - an evening seeded through a real `serve` and enrolled scanners (test/support/report-seed.ts): entries
 *   over several minutes at two gates, some admitted offline, exits, refusals;
 * - the admin dashboard draws the arrivals chart (uPlot, a canvas) with the right series and the text
 *   summary beside it, and updates it live after one more check-in, without a CSP violation;
 * - `ticket-issuer report` writes report.html, which opens with the network OFF (the context offline, and
 *   every request but the file's own aborted and recorded): every chart is an inline SVG with its bars and
 *   lines, and no request left the page.
 *
 * Screenshots go to test-results/charts/; with UPDATE_SCREENSHOTS=1 they are copied to docs/screenshots/
 * (admin-arrivals.png, report.png) for the docs and the README, as test/e2e/admin-dashboard.e2e.test.ts does.
 */
import crypto from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { cliJson, removeScratchDirs, runCli, scratchDir } from '../support/cli-harness.js';
import { LOOPBACK, ROOT, startIssuer, type RunningIssuer } from '../support/door-harness.js';
import { freePort } from '../support/free-port.js';
import { postCheckIn } from '../support/issuer-http.js';
import { seedEvening, type SeededEvening } from '../support/report-seed.js';

const SHOTS = join(ROOT, 'test-results', 'charts');
const DOC_SHOTS = join(ROOT, 'docs', 'screenshots');
const WAIT_MS = 30_000;
const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** The page's globals as page.evaluate sees them (the Node build has no DOM lib). */
declare const document: { querySelector(selector: string): unknown };

let data: string;
let issuer: RunningIssuer | null = null;
let url: string;
let seeded: SeededEvening;

function keep(file: string, name: string): void {
  if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(file, join(DOC_SHOTS, name));
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  if (!existsSync(join(ROOT, 'dist', 'dashboard', 'index.html'))) throw new Error('dist/dashboard is missing: run npm run build first');
  mkdirSync(SHOTS, { recursive: true });
  mkdirSync(DOC_SHOTS, { recursive: true });
  data = join(scratchDir('charts-e2e-'), 'issuer');
  const port = await freePort();
  url = `http://${LOOPBACK}:${port}`;
  await cliJson(['init', '--data', data, '--base-url', url, '--name', 'Harbour Lights Festival']);
  // Started here, not with the CLI harness's serveCli (which stops its serve processes after each test).
  issuer = await startIssuer(data, port);
  seeded = await seedEvening(url, data);
});

test.afterAll(async () => {
  await issuer?.stop().catch(() => undefined);
  removeScratchDirs();
});

// The report's arrivals count the dashboard test's live entry: the two parts run in order.
test.describe.configure({ mode: 'serial' });

test.describe('the dashboard arrivals chart', () => {
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(60_000);
    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', data]);
    // UTC and en-GB: the summary's clock times are predictable.
    context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, timezoneId: 'UTC', locale: 'en-GB' });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(`${url}/admin`);
    await page.fill('#admin-token', token);
    await page.click('button[type=submit]');
    await page.locator('#event-select').waitFor();
    await page.selectOption('#event-select', seeded.eid);
  });

  test.afterAll(async () => {
    await context?.close().catch(() => undefined);
  });

  test('draws entries per minute per gate, and exits where a gate has them, on a canvas with the right series', async () => {
    const plot = page.locator('#arrivals-plot');
    await expect.poll(() => plot.getAttribute('data-series'), { timeout: WAIT_MS }).toBe('North in|South in|North out');
    // From the first entry's minute to now, one value per minute.
    expect(Number(await plot.getAttribute('data-minutes'))).toBeGreaterThanOrEqual(55);
    expect(await page.locator('#arrivals-plot canvas').count()).toBe(1);
    expect(await page.locator('#arrivals .u-legend').textContent()).toMatch(/North in.*South in.*North out/);
    // The canvas really has the gates' colours on it (North #0072B2, South #D55E00), not just an empty frame.
    const painted = await page.evaluate(() => {
      const canvas = document.querySelector('#arrivals-plot canvas') as {
        width: number;
        height: number;
        getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
      };
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const near = (i: number, [r, g, b]: number[]) =>
        Math.abs(pixels[i]! - r!) < 40 && Math.abs(pixels[i + 1]! - g!) < 40 && Math.abs(pixels[i + 2]! - b!) < 40 && pixels[i + 3]! > 200;
      let north = 0;
      let south = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if (near(i, [0x00, 0x72, 0xb2])) north++;
        if (near(i, [0xd5, 0x5e, 0x00])) south++;
      }
      return { north, south, width: canvas.width, height: canvas.height };
    });
    expect(painted.width).toBeGreaterThan(300);
    expect(painted.north, 'North line pixels').toBeGreaterThan(50);
    expect(painted.south, 'South line pixels').toBeGreaterThan(50);
  });

  test('says the same in words beside it: peak minute, totals, each gate', async () => {
    const summary = page.locator('#arrivals-summary');
    const lines = await summary.locator('p').allTextContents();
    expect(lines).toEqual([
      `Busiest minute: ${clock(seeded.expected.peak.minute)}, with 4 entries at all gates together.`,
      `Since ${clock(seeded.base)}: 11 entries and 2 exits.`,
      'North: 7 entries, 2 exits.',
      'South: 4 entries, 0 exits.',
    ]);
    // The canvas is hidden from screen readers; the summary is the text they read.
    expect(await page.getAttribute('#arrivals-plot', 'aria-hidden')).toBe('true');
    const file = join(SHOTS, 'admin-arrivals.png');
    await page.locator('#arrivals').screenshot({ path: file });
    keep(file, 'admin-arrivals.png');
  });

  test('updates live: one more entry now shows up in the chart and the summary without a reload', async () => {
    const response = await postCheckIn(url, seeded.south, {
      tid: seeded.spare,
      eid: seeded.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: seeded.south.scannerId,
      idempotency_key: crypto.randomUUID(),
    });
    expect(response.status).toBe(200);
    await expect
      .poll(() => page.locator('#arrivals-summary p').nth(1).textContent(), { timeout: WAIT_MS })
      .toBe(`Since ${clock(seeded.base)}: 12 entries and 2 exits.`);
    expect(await page.locator('#arrivals-summary p').nth(3).textContent()).toBe('South: 5 entries, 0 exits.');
    expect(await page.locator('#arrivals-plot canvas').count()).toBe(1);
  });

  test('raised no page error and no Content-Security-Policy violation', () => {
    // The page's first session request, before the token is typed, is a 401 that Chromium logs: expected, nothing else is.
    expect(pageErrors.filter((error) => !/status of 401/.test(error))).toEqual([]);
  });
});

test.describe('the after-event report, opened offline', () => {
  let html: string;
  let file: string;
  let page: Page;
  let context: BrowserContext;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(60_000);
    file = join(scratchDir('report-e2e-'), 'report.html');
    const result = await runCli(['report', '--data', data, '--event', seeded.eid, '--out', file, '--tz', 'UTC', '--json']);
    expect(result.code, result.stderr).toBe(0);
    html = readFileSync(file, 'utf8');
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.setOffline(true);
    const url = pathToFileURL(file).href;
    // Everything but the file itself is aborted, and every request is recorded.
    await context.route('**', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(url);
  });

  test.afterAll(async () => {
    await context?.close().catch(() => undefined);
  });

  test('every chart rendered: each SVG present, laid out, with its bars and lines', async () => {
    for (const id of ['chart-arrivals', 'chart-offline-delay', 'chart-problems', 'chart-uptime']) {
      const box = await page.locator(`svg#${id}`).boundingBox();
      expect(box, id).not.toBeNull();
      expect(box!.width, id).toBeGreaterThan(300);
      expect(box!.height, id).toBeGreaterThan(80);
    }
    // Arrivals: North in the first two buckets, South in the first and third and the live entry's (the dashboard
    // test's, a moment ago), exits as a line over every bucket.
    expect(await page.locator('#chart-arrivals g.series[data-gate="North"] rect.bar').count()).toBe(2);
    expect(await page.locator('#chart-arrivals g.series[data-gate="South"] rect.bar').count()).toBe(3);
    const heights = await page
      .locator('#chart-arrivals rect.bar')
      .evaluateAll((bars) => bars.map((bar) => (bar as unknown as { getBBox(): { height: number } }).getBBox().height));
    expect(heights.every((height) => height > 1)).toBe(true);
    const exits = await page.locator('#chart-arrivals path.line.exits').getAttribute('d');
    expect(exits).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){11,}$/);
    // The two offline entries synced about 50 minutes late.
    expect(await page.locator('#chart-offline-delay rect.bar').count()).toBe(1);
    expect(await page.locator('#chart-offline-delay rect.bar').getAttribute('data-bin')).toBe('15 – 60 min');
    // Problems: four bars; scanner uptime: one span per scanner.
    expect(await page.locator('#chart-problems g.problem').count()).toBe(4);
    expect(await page.locator('#chart-uptime rect.span').count()).toBe(3);
    expect(await page.textContent('#peak-minute')).toContain(`Peak minute: ${clock(seeded.expected.peak.minute)}, 4 entries`);
    const shot = join(SHOTS, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    keep(shot, 'report.png');
  });

  test('no request left the page, and the file names no URL', () => {
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(html).not.toMatch(/(https?|ftp):\/\//i);
    expect(pageErrors).toEqual([]);
  });
});

/**
 * The demo's page of codes (`npm run demo` writes demo-data/tickets.html with
 * scripts/demo-page.mjs), rendered in real Chromium and read back off the
 * screen (docs/issuer.md "QR codes"): every code, with exact strings, by
 * zxing-cpp (zxing-wasm) from one screenshot of the whole page at a device
 * pixel ratio of 1, where the old page's version-17 tickets failed; each code
 * alone by jsqr too; and each drawn with a whole number of device pixels per
 * module and a 4-module quiet zone, also at 125 % and 200 %.
 *
 * The codes are real ones, made by the built CLI the way the demo makes them:
 * a setup code, the calibration code, tickets (valid, revoked, expired), a
 * forged ticket and a web address. Needs the build (test/global-setup.ts); no
 * issuer is served, no keyring.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Browser } from '@playwright/test';
import { issuerCli, requireBuild } from '../support/door-harness.js';
import { CALIBRATION_CODE } from '../../protocol/calibration-code.js';
import { ticketsPageHtml, type DemoCode } from '../../scripts/demo-page.mjs';
import {
  checkModuleGrid,
  crop,
  jsqrDecode,
  pngPixels,
  qrVersion,
  zxingDecodeAll,
  zxingResults,
  type Pixels,
} from '../support/qr-decoders.js';

let root: string;
let pageUrl: string;
let codes: DemoCode[];
let browser: Browser | null = null;

/** A ticket with its payload changed after signing, as the demo forges one. */
function forge(code: string): string {
  const [prefix, payload, signature] = code.split('.') as [string, string, string];
  const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  json.tt = 'VIP';
  json.hn = 'Frank Forger';
  return [prefix, Buffer.from(JSON.stringify(json)).toString('base64url'), signature].join('.');
}

test.beforeAll(async ({ browser: workerBrowser }) => {
  test.setTimeout(120_000);
  requireBuild();
  root = mkdtempSync(join(tmpdir(), 'demo-page-e2e-'));
  const data = join(root, 'issuer');
  await issuerCli(data, 'init', '--base-url', 'http://127.0.0.1:45678', '--name', 'Demo Events');
  const tonight = new Date(Date.now() + 3 * 3600_000).toISOString();
  const { eid } = await issuerCli<{ eid: string }>(
    data,
    'event',
    'create',
    '--name',
    'Demo Night',
    '--date',
    tonight,
    '--venue',
    'Main Hall',
  );
  const issue = async (holder: string, type: string, ...extra: string[]): Promise<{ tid: string; qr: string }> =>
    (
      await issuerCli<{ tickets: { tid: string; qr: string }[] }>(
        data,
        'ticket',
        'issue',
        '--event',
        eid,
        '--holder',
        holder,
        '--type',
        type,
        ...extra,
      )
    ).tickets[0]!;
  const tickets = [];
  for (const [holder, type] of [
    ['Ada Lovelace', 'VIP'],
    ['Zoë Müller', 'Student'],
    ['Karen Spärck Jones', 'Press'],
    ['Chien-Shiung Wu', 'Standard'],
    ['Shafi Goldwasser', 'Backstage'],
    ['Søren Kierkegaard', 'Student'],
  ] as const) {
    tickets.push({ ...(await issue(holder, type)), holder, type });
  }
  const revoked = await issue('Mallory Revoked', 'Standard');
  await issuerCli(data, 'ticket', 'revoke', revoked.tid, '--reason', 'demo: refunded');
  const expired = await issue('Eddie Expired', 'Standard', '--expires', new Date(Date.now() - 86_400_000).toISOString());
  const setup = await issuerCli<{ setup_qr: string }>(data, 'scanner', 'setup', '--event', eid, '--gate', 'Main door');
  const { calibration_code } = await issuerCli<{ calibration_code: string }>(data, 'scanner', 'calibration');
  expect(calibration_code).toBe(CALIBRATION_CODE);

  codes = [
    { n: 's', code: setup.setup_qr, holder: 'Setup code', type: 'Gate: Main door', expect: 'Scan FIRST', kind: 'setup' },
    {
      n: 'c',
      code: calibration_code,
      holder: 'Scanner calibration: at Setup, or at Ready after #t',
      type: 'The same code for every kiosk',
      expect: 'Scanner check',
      kind: 'calibration',
    },
    ...tickets.map((t, i): DemoCode => ({ n: String(i + 1), code: t.qr, holder: t.holder, type: t.type, expect: 'ADMIT', kind: 'valid' })),
    { n: '7', code: revoked.qr, holder: 'Mallory Revoked', type: 'Standard', expect: 'REFUSE: revoked', kind: 'refuse' },
    { n: '8', code: expired.qr, holder: 'Eddie Expired', type: 'Standard', expect: 'REFUSE: expired', kind: 'refuse' },
    { n: '9', code: forge(tickets[0]!.qr), holder: 'Frank Forger', type: 'VIP (forged)', expect: 'REFUSE: forged', kind: 'refuse' },
    { n: '10', code: 'https://example.org/not-a-ticket', holder: 'Not a ticket', type: 'a web address', expect: 'REFUSE', kind: 'refuse' },
  ];
  const file = join(root, 'tickets.html');
  writeFileSync(
    file,
    await ticketsPageHtml({
      title: 'Demo tickets',
      heading: `Demo Night: ${codes.length} codes to scan`,
      intro: 'Scan <b>#s</b> first.',
      codes,
    }),
  );
  pageUrl = pathToFileURL(file).href;
  browser = workerBrowser;
});

test.afterAll(async () => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Shown {
  pixels: Pixels;
  /** Each code's image, cut out of the page at its place (device pixels), with its side in modules. */
  images: { alt: string; image: Pixels; modules: number; box: { x: number; y: number; width: number; height: number } }[];
}

/** The whole page as Chromium shows it at this device pixel ratio (a screenshot in device pixels), and where each code is. */
async function showPage(deviceScaleFactor: number): Promise<Shown> {
  const context = await browser!.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor });
  try {
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0));
    const pixels = pngPixels(await page.screenshot({ fullPage: true }));
    const placed = await page.$$eval('img[data-modules]', (imgs) =>
      imgs.map((img) => {
        const r = img.getBoundingClientRect();
        return {
          alt: img.alt,
          modules: Number(img.dataset.modules),
          box: { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height },
        };
      }),
    );
    const images = placed.map(({ alt, modules, box }) => {
      const device = {
        x: box.x * deviceScaleFactor,
        y: box.y * deviceScaleFactor,
        width: box.width * deviceScaleFactor,
        height: box.height * deviceScaleFactor,
      };
      for (const [what, value] of Object.entries(device)) {
        // Layout positions are kept in 1/64 CSS px (Chromium's LayoutUnit): "whole" means within that.
        expect(Math.abs(value - Math.round(value)), `${alt}: ${what} ${value} is on a whole device pixel`).toBeLessThan(
          (deviceScaleFactor * 1.5) / 64,
        );
      }
      const image = crop(pixels, Math.round(device.x), Math.round(device.y), Math.round(device.width), Math.round(device.height));
      return { alt, image, modules, box };
    });
    return { pixels, images };
  } finally {
    await context.close();
  }
}

test.describe('the demo page of codes, in Chromium', () => {
  test('at a device pixel ratio of 1, zxing-cpp reads every code on it from one screenshot, exactly', async () => {
    const { pixels, images } = await showPage(1);
    expect(images).toHaveLength(codes.length);
    const read = await zxingDecodeAll(pixels);
    expect([...read].sort()).toEqual(codes.map((c) => c.code).sort());
    // The case the old page failed: tickets of the larger versions.
    const versions = await Promise.all(images.map(async ({ image }) => qrVersion((await zxingResults(image))[0]!)));
    expect(Math.max(...versions)).toBeGreaterThanOrEqual(13);
  });

  test('each code alone reads with jsqr and zxing-cpp, and has whole pixels per module and a 4-module quiet zone, at 100 %, 125 % and 200 %', async () => {
    for (const ratio of [1, 1.25, 2]) {
      const { images } = await showPage(ratio);
      for (const [i, { alt, image, modules }] of images.entries()) {
        const expected = codes[i]!;
        expect(alt).toBe(`QR code ${expected.n}`);
        const [result] = await zxingResults(image);
        expect(result?.text, `zxing-cpp, ${alt} at ×${ratio}`).toBe(expected.code);
        expect(modules, `${alt}: data-modules is the symbol's side plus the quiet zone`).toBe(17 + 4 * qrVersion(result!) + 8);
        expect(jsqrDecode(image), `jsqr, ${alt} at ×${ratio}`).toBe(expected.code);
        const perModule = checkModuleGrid(image, modules);
        expect(perModule, `${alt} at ×${ratio}`).toBeGreaterThanOrEqual(2);
      }
    }
  });
});

/** The page's globals as the functions passed to page.evaluate see them (the Node build has no DOM lib). */
declare const document: { images: Iterable<{ complete: boolean; naturalWidth: number }> };
declare const window: { scrollX: number; scrollY: number };

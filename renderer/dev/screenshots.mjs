// Screenshot check of the kiosk screens (dev tool, not part of the build or the test suite).
//   npx vite build --config renderer/vite.config.ts --mode dev && node renderer/dev/screenshots.mjs
// Serves dist/kiosk-page-dev on 127.0.0.1, drives Chromium with the fake kiosk, sends codes as keyboard-wedge
// bursts, asserts the data-* hooks and writes PNGs to test-results/renderer/.
// Then the verdict screens in each language (ADMIT, and REFUSE already used; German with English as the
// second language too): with UPDATE_SCREENSHOTS=1 into docs/screenshots/ (shown in docs/kiosk-screens.md).
import { createServer } from 'node:http';
import { mkdir, readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../../dist/kiosk-page-dev/', import.meta.url));
const out = fileURLToPath(new URL('../../test-results/renderer/', import.meta.url));
const languageOut = process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : out;
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  try {
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    console.error(`404 ${req.url}`);
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/dev/`;
await mkdir(out, { recursive: true });

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});

function expectEqual(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${expected}, got ${actual}`);
}

/**
 * Like a wedge scanner: one burst of keydown events, then Enter. Dispatched inside the page because
 * keys typed over CDP (page.keyboard.type) get their timestamps when the browser receives each
 * command: on a loaded machine some gaps exceed 80 ms and split the burst, which a real scanner's
 * hardware-timestamped keys do not. Also types what a US keyboard cannot (é, ç…: a scanner on AZERTY).
 */
async function scan(page, text) {
  await page.evaluate((t) => {
    for (const key of [...t, 'Enter']) document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
  }, text);
}

/** A person typing: 100 ms between keys (busy-waited, so every gap is at least that). */
async function typeLikeAPerson(page, text) {
  await page.evaluate((t) => {
    for (const key of [...t, 'Enter']) {
      const until = performance.now() + 100;
      while (performance.now() < until) {
        /* wait */
      }
      document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
    }
  }, text);
}

const US_TO_FR = new Map([...'1234567890'].map((d, i) => [d, '&é"\'(-è_çà'[i]]));
for (const [us, fr] of [
  ['a', 'q'],
  ['q', 'a'],
  ['w', 'z'],
  ['z', 'w'],
  ['A', 'Q'],
  ['Q', 'A'],
  ['W', 'Z'],
  ['Z', 'W'],
  ['m', ','],
  ['M', '?'],
  ['-', ')'],
  ['_', '°'],
  ['.', ':'],
])
  US_TO_FR.set(us, fr);

async function run(width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  // frame-ancestors only works as an HTTP header; the meta tag keeps it for hosts that copy the policy into one.
  page.on('console', (m) => m.type() === 'error' && !m.text().includes("'frame-ancestors' is ignored") && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  page.on('pageerror', (e) => errors.push(String(e)));
  const shot = async (name) => {
    await page.waitForTimeout(250);
    await page.screenshot({ path: join(out, `${width}x${height}-${name}.png`) });
  };
  const screen = () => page.getAttribute('#screen', 'data-screen');
  await page.goto(url);
  await page.waitForSelector('#screen[data-screen="setup"]');
  await shot('01-setup');

  await scan(page, await page.evaluate(() => window.fakeKiosk.makeSetupCode({ event_name: 'Expired', gate_id: 'B' })));
  await page.waitForSelector('[data-setup-message]');
  await shot('02-setup-error');

  await scan(page, await page.evaluate(() => window.fakeKiosk.makeSetupCode({ event_name: 'Summer Night Open Air', gate_id: 'B' })));
  await page.waitForSelector('#screen[data-screen="ready"]');
  await shot('03-ready-empty');

  const ticket = await page.evaluate(() =>
    window.fakeKiosk.makeTicketCode({ tid: '01HZX9A1B2C3D4E5F6G7H8J9KM', hn: 'Zoë Müller', tt: 'VIP' }),
  );
  await scan(page, ticket);
  await page.waitForSelector('[data-verdict="admit"][data-reason="valid"]');
  await shot('04-admit');

  await page.keyboard.press('Escape');
  await scan(page, ticket);
  await page.waitForSelector('section[data-verdict="refuse"][data-reason="already_used"]');
  await shot('05-refuse-already-used');

  await scan(
    page,
    await page.evaluate(() =>
      window.fakeKiosk.makeTicketCode({ tid: 'T2', hn: 'Sam Lee', tt: 'Standard', eid: 'OTHER', event: 'Winter Jazz Night' }),
    ),
  );
  await page.waitForSelector('section[data-reason="wrong_event"]');
  await shot('06-refuse-wrong-event');

  const frMangled = [...ticket].map((c) => US_TO_FR.get(c) ?? c).join('');
  await scan(page, frMangled);
  await page.waitForSelector('section[data-reason="layout_mismatch"]');
  await shot('07-refuse-layout-mismatch');

  await page.keyboard.press('Escape');
  await page.evaluate(() => {
    const k = window.fakeKiosk;
    k.change({
      connection: 'offline',
      pending_scans: 12,
      double_admissions: [{ tid: 'X', eid: 'EVT1', admitted_here_at: '2026-07-18T19:50:00Z', first_checked_in_at: '2026-07-18T19:42:00Z' }],
    });
  });
  await scan(page, await page.evaluate(() => window.fakeKiosk.makeTicketCode({ tid: 'T3', hn: 'Ana Ruiz', tt: 'Standard' })));
  await page.waitForSelector('section[data-verdict="admit"] [data-offline]');
  await shot('08-admit-offline');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#screen[data-screen="ready"]');
  expectEqual(await page.getAttribute('[data-connection]', 'data-connection'), 'offline', 'connection hook');
  expectEqual(await page.getAttribute('[data-double-admissions]', 'data-double-admissions'), '1', 'double admissions hook');
  await shot('09-ready-offline');

  await page.evaluate(() => window.fakeKiosk.change({ connection: 'online' }));
  await page.keyboard.press('F2');
  await page.waitForSelector('#screen[data-screen="lookup"]');
  await page.fill('[data-lookup-input]', '01HZX9A1B2C3D4E5F6G7H8J9KM');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-lookup-result][data-status="checked_in"]');
  await shot('10-lookup');
  await page.keyboard.press('Escape');

  await scan(page, await page.evaluate(() => window.fakeKiosk.makeSetupCode({ event_name: 'Autumn Festival', gate_id: 'North' })));
  await page.waitForSelector('#screen[data-screen="setup"][data-setup-mode="confirm"]');
  await shot('11-re-enroll-confirm');
  await page.click('[data-action="cancel-re-enroll"]');
  await page.waitForSelector('#screen[data-screen="ready"]');

  await page.evaluate(() => window.fakeKiosk.change({ authorised: false }));
  await scan(page, ticket);
  await page.waitForSelector('section[data-reason="scanner_unauthorized"]');
  await shot('12-refuse-unauthorised');

  // A person typing a code slowly must not be taken for a scan.
  await page.keyboard.press('Escape');
  await typeLikeAPerson(page, 'tkt1.abcdefghijk.lmnop');
  await page.waitForTimeout(300);
  expectEqual(await screen(), 'ready', 'human typing is ignored');

  if (errors.length) throw new Error(`page errors at ${width}x${height}:\n${errors.join('\n')}`);
  await page.close();
}

/** ADMIT and REFUSE (already used) in each language, on a fixed clock time so the pictures do not change. */
async function languages(width, height) {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('#screen[data-screen="setup"]');
  await scan(page, await page.evaluate(() => window.fakeKiosk.makeSetupCode({ event_name: 'Summer Night Open Air', gate_id: 'B' })));
  await page.waitForSelector('#screen[data-screen="ready"]');
  let n = 0;
  const verdict = async (kind) => {
    n += 1;
    await page.evaluate(
      ({ kind, n }) => {
        const decided = new Date(Date.UTC(2026, 6, 18, 19, 45, n)).toISOString();
        const ticket = { tid: `L${n}`, eid: 'EVT1', holder_name: 'Zoë Müller', ticket_type: 'VIP' };
        window.fakeKiosk.forcedVerdict =
          kind === 'admit'
            ? { kind: 'admit', decided_at: decided, offline: false, decided_by: 'issuer', ticket }
            : {
                kind: 'refuse',
                reason: 'already_used',
                decided_at: decided,
                offline: false,
                decided_by: 'issuer',
                ticket,
                first_used_at: new Date(2026, 6, 18, 19, 42).toISOString(),
              };
      },
      { kind, n },
    );
    await scan(page, await page.evaluate(() => window.fakeKiosk.makeTicketCode({ tid: 'L', hn: 'Zoë Müller', tt: 'VIP' })));
    await page.waitForSelector(`section[data-verdict="${kind}"]`);
    await page.waitForTimeout(250);
  };
  for (const [primary, secondary] of [
    ['en', null],
    ['de', null],
    ['fr', null],
    ['es', null],
    ['de', 'en'],
  ]) {
    await page.evaluate(({ primary, secondary }) => window.fakeKiosk.setLanguage(primary, secondary), { primary, secondary });
    // Polled from here: waitForFunction evaluates its predicate in the page, which the page's CSP forbids.
    while ((await page.evaluate(() => document.documentElement.lang)) !== primary) await page.waitForTimeout(50);
    const name = secondary ? `${primary}-${secondary}` : primary;
    await verdict('admit');
    await page.screenshot({ path: join(languageOut, `verdict-${name}-admit.png`) });
    await page.keyboard.press('Escape');
    await verdict('refuse');
    await page.screenshot({ path: join(languageOut, `verdict-${name}-already-used.png`) });
    await page.keyboard.press('Escape');
  }
  if (errors.length) throw new Error(`page errors in the language screenshots:\n${errors.join('\n')}`);
  await page.close();
}

try {
  if (process.env.ONLY_LANGUAGES !== '1') {
    await run(1024, 768);
    await run(1920, 1080);
  }
  await languages(1024, 640);
  console.log(`screenshots in ${out}${languageOut === out ? '' : ` and ${languageOut}`}`);
} finally {
  await browser.close();
  server.close();
}

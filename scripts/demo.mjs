#!/usr/bin/env node
// `npm run demo`: the whole product on this machine, on loopback only.
//   1. re-creates ./demo-data/ (an issuer with an event and tickets),
//   2. starts the issuer (plain HTTP on 127.0.0.1, which the protocol allows on loopback),
//   3. starts the kiosk: Electron when its binary is installed, else the browser host,
//   4. writes demo-data/tickets.html: the setup QR, the scanner calibration code and every ticket QR,
//      labelled with what it should do (scripts/demo-page.mjs draws it).
// No scanner? With the browser host, type a ticket's number in this terminal: it is sent as a scan.
// Ctrl+C stops everything. Options: --web (browser host even if Electron is there), --port N (kiosk port).
// Uses the built programs (dist/, with the kiosk page in dist/kiosk-page/): `npm ci` builds them, or `npm run build`.
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ticketsPageHtml } from './demo-page.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const demoDir = join(root, 'demo-data');
const issuerDir = join(demoDir, 'issuer');
const kioskDir = join(demoDir, 'kiosk');
const issuerCli = join(root, 'dist', 'issuer', 'cli.js');
const kioskCli = join(root, 'dist', 'main', 'cli.js');
const startJs = join(root, 'dist', 'main', 'start.js');
const HOST = '127.0.0.1';

const args = process.argv.slice(2);
const forceWeb = args.includes('--web');
const portArg = args.indexOf('--port');
const preferredKioskPort = portArg >= 0 ? Number(args[portArg + 1]) : 8787;

const say = (line = '') => console.log(line);
const fail = (message) => {
  console.error(`demo: ${message}`);
  process.exit(1);
};

// ---------- a keyring ----------
// The kiosk refuses to start without an OS keyring for its API key. A headless Linux box (a fresh
// server, a container) has no session bus, so run again inside a private, throwaway gnome-keyring:
// the demo's key belongs to a throwaway issuer anyway, and no real keyring is touched.
if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS && !process.env.TICKET_DEMO_PRIVATE_KEYRING) {
  const wrapper = join(root, 'scripts', 'with-keyring.sh');
  say('No D-Bus session here: running the demo inside a private keyring (scripts/with-keyring.sh).');
  const child = spawn(wrapper, [process.execPath, fileURLToPath(import.meta.url), ...args], {
    stdio: 'inherit',
    env: { ...process.env, TICKET_DEMO_PRIVATE_KEYRING: '1' },
  });
  // Ctrl+C reaches the demo inside too (same terminal); this process only waits for it to finish.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (error) => fail(`cannot start ${wrapper}: ${error.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  await new Promise(() => {});
}

// ---------- preconditions ----------
for (const file of [issuerCli, kioskCli, join(root, 'dist', 'kiosk-page', 'index.html')]) {
  if (!existsSync(file)) fail(`${relative(root, file)} is missing: build first (npm run build)`);
}

// ---------- a fresh demo folder ----------
/** Deletes `path` only if it is inside demo-data/ and demo-data is a real folder (not a link elsewhere). */
function removeInsideDemo(path) {
  const inside = relative(demoDir, path);
  if (inside === '' || inside.startsWith('..') || resolve(demoDir, inside) !== path)
    throw new Error(`refusing to delete ${path}: outside ${demoDir}`);
  if (existsSync(demoDir) && !lstatSync(demoDir).isDirectory())
    throw new Error(`${demoDir} is not a plain folder; refusing to delete anything in it`);
  rmSync(path, { recursive: true, force: true });
}
for (const path of [issuerDir, kioskDir, join(demoDir, 'tickets.html'), join(demoDir, 'tickets.csv'), join(demoDir, 'other-event.csv')])
  removeInsideDemo(path);
mkdirSync(demoDir, { recursive: true });

/** A free loopback port, `preferred` when it is free. */
function freePort(preferred = 0) {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(freePort(0)));
    server.listen(preferred, HOST, () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

const run = promisify(execFile);
/** One admin command, as a user would type it, with --json: returns the parsed answer. */
async function issuer(...command) {
  try {
    const { stdout } = await run(process.execPath, [issuerCli, ...command, '--data', issuerDir, '--json'], { cwd: root });
    return JSON.parse(stdout);
  } catch (error) {
    throw new Error(`ticket-issuer ${command.slice(0, 2).join(' ')} failed: ${error.stderr?.trim() || error.message}`, { cause: error });
  }
}

// ---------- the issuer's data ----------
const issuerPort = await freePort();
const baseUrl = `http://${HOST}:${issuerPort}`;
say(`Creating a demo issuer in ${relative(root, issuerDir)} …`);
await issuer('init', '--base-url', baseUrl, '--name', 'Demo Events');

const tonight = new Date();
tonight.setHours(19, 30, 0, 0);
const tomorrow = new Date(tonight.getTime() + 24 * 3600_000);
const event = await issuer('event', 'create', '--name', 'Demo Night', '--date', tonight.toISOString(), '--venue', 'Main Hall');
const otherEvent = await issuer('event', 'create', '--name', 'Jazz Brunch', '--date', tomorrow.toISOString(), '--venue', 'Garden Stage');

// Varied holders and types, issued in one `ticket import` (one process instead of thirty).
const HOLDERS = [
  ['Ada Lovelace', 'VIP'],
  ['Grace Hopper', 'Standard'],
  ['Alan Turing', 'Standard'],
  ['Zoë Müller', 'Student'],
  ['Katherine Johnson', 'VIP'],
  ['Linus Pauling', 'Standard'],
  ['Hedy Lamarr', 'Backstage'],
  ['José Rizal', 'Standard'],
  ['Mae Jemison', 'Press'],
  ['Tim Berners-Lee', 'Standard'],
  ['Margaret Hamilton', 'VIP'],
  ['Søren Kierkegaard', 'Student'],
  ['Chien-Shiung Wu', 'Standard'],
  ['Frances Allen', 'Standard'],
  ['Niklaus Wirth', 'Student'],
  ['Barbara Liskov', 'VIP'],
  ['Edsger Dijkstra', 'Standard'],
  ['Radia Perlman', 'Press'],
  ['Donald Knuth', 'Standard'],
  ['Shafi Goldwasser', 'Backstage'],
  ['Ken Thompson', 'Standard'],
  ['Anita Borg', 'Student'],
  ['Dennis Ritchie', 'Standard'],
  ['Sophie Wilson', 'VIP'],
  ['Guido van Rossum', 'Standard'],
  ['Ward Cunningham', 'Standard'],
  ['Karen Spärck Jones', 'Press'],
  ['', 'Standard'],
];
const REVOKED = ['Mallory Revoked', 'Standard'];
const EXPIRED = ['Eddie Expired', 'Standard', new Date(Date.now() - 24 * 3600_000).toISOString()];
const csv = (rows) => rows.map((fields) => fields.map((f) => `"${f.replaceAll('"', '""')}"`).join(',')).join('\n') + '\n';
writeFileSync(join(demoDir, 'tickets.csv'), csv([...HOLDERS, REVOKED, EXPIRED]));
writeFileSync(join(demoDir, 'other-event.csv'), csv([['Olga Otherday', 'Standard']]));
const issued = (await issuer('ticket', 'import', '--event', event.eid, '--csv', join(demoDir, 'tickets.csv'))).tickets;
const [otherTicket] = (await issuer('ticket', 'import', '--event', otherEvent.eid, '--csv', join(demoDir, 'other-event.csv'))).tickets;
const revokedTicket = issued[HOLDERS.length];
const expiredTicket = issued[HOLDERS.length + 1];
await issuer('ticket', 'revoke', revokedTicket.tid, '--reason', 'demo: refunded');
const setup = await issuer('scanner', 'setup', '--event', event.eid, '--gate', 'Main door');
// The same for every kiosk; it needs no data dir (docs/kiosk.md "Calibration").
const { calibration_code: calibrationCode } = await issuer('scanner', 'calibration');
// At Ready a calibration code is acted on only while a technician is unlocked (docs/kiosk.md "Calibration").
const technicianBadge = await issuer('staff', 'badge', 'issue', '--name', 'Tia', '--role', 'technician', '--event', event.eid);
// The admin dashboard's sign-in token (init --json makes none; docs/issuer.md "Admin dashboard").
const { admin_token: adminToken } = await issuer('admin-token', 'reset');

/** A real ticket with one field changed after signing (a "Standard" made "VIP"): the signature no longer matches. */
function forge(code) {
  const [prefix, payload, signature] = code.split('.');
  const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  json.tt = 'VIP';
  json.hn = 'Frank Forger';
  return [prefix, Buffer.from(JSON.stringify(json)).toString('base64url'), signature].join('.');
}

/** Every code on the page, in order; `n` is what to type in this terminal to scan it without a scanner. */
let ticketNumber = 1; // tickets are numbered 1, 2, … after the lettered cards
const codes = [
  {
    n: 's',
    code: setup.setup_qr,
    holder: 'Setup code',
    type: 'Gate: Main door',
    expect: 'Scan FIRST: enrolls the kiosk for "Demo Night" (works once)',
    kind: 'setup',
  },
  {
    n: 't',
    code: technicianBadge.badge_qr,
    holder: 'Staff badge: Tia, technician',
    type: 'Unlocks the technician functions until the next ticket',
    expect: 'Ready names Tia (technician); scan #c next to check the scanner',
    kind: 'setup',
  },
  {
    n: 'c',
    code: calibrationCode,
    holder: 'Scanner calibration: at Setup, or at Ready after #t',
    type: 'The same code for every kiosk',
    expect: 'Shows the Scanner check: input path, terminator, speed, keyboard layout (and fixes it)',
    kind: 'calibration',
  },
  ...HOLDERS.map(([holder, type], i) => ({
    code: issued[i].qr,
    holder: holder || '(no name)',
    type,
    expect: 'ADMIT on first scan, then REFUSE "Already used"',
    kind: 'valid',
  })),
  { code: revokedTicket.qr, holder: REVOKED[0], type: REVOKED[1], expect: 'REFUSE: revoked', kind: 'refuse' },
  { code: expiredTicket.qr, holder: EXPIRED[0], type: EXPIRED[1], expect: 'REFUSE: expired', kind: 'refuse' },
  {
    code: otherTicket.qr,
    holder: 'Olga Otherday',
    type: 'Standard (Jazz Brunch)',
    expect: 'REFUSE: ticket for another event',
    kind: 'refuse',
  },
  {
    code: forge(issued[1].qr),
    holder: 'Frank Forger',
    type: 'VIP (forged)',
    expect: 'REFUSE: forged (signature does not match)',
    kind: 'refuse',
  },
  {
    code: 'https://example.org/not-a-ticket',
    holder: 'Not a ticket',
    type: 'a web address',
    expect: 'REFUSE: not a valid ticket',
    kind: 'refuse',
  },
].map((entry) => ({ ...entry, n: entry.n ?? String(ticketNumber++) }));

// ---------- the printable page ----------
const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const ticketsHtml = join(demoDir, 'tickets.html');
writeFileSync(
  ticketsHtml,
  await ticketsPageHtml({
    title: 'Demo tickets: Demo Night',
    heading: `Demo Night: ${codes.length} codes to scan`,
    intro: `Scan <b>#s</b> (the setup code) first, then any ticket. Each card says what the kiosk should show.
<b>#c</b> checks the scanner and the keyboard layout (scan it at the Setup screen, or at Ready right after the technician badge <b>#t</b>).
Issuer: ${escapeHtml(baseUrl)} (event ${escapeHtml(event.eid)}). Print this page or scan it from the screen.`,
    codes,
  }),
);

// ---------- the running programs ----------
const children = [];
/** Starts a program in its own process group, so Ctrl+C reaches it once, from us, in order. */
function startChild(name, command, childArgs, logFile) {
  const log = createWriteStream(logFile, { flags: 'w' });
  const child = spawn(process.execPath, [command, ...childArgs], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const entry = { name, child, output: '', exited: new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal))) };
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(log, { end: false });
    stream.on('data', (chunk) => (entry.output = (entry.output + chunk).slice(-4000)));
  }
  entry.exited.then((how) => {
    if (stopping) return;
    console.error(
      `\ndemo: the ${name} stopped unexpectedly (${how}). Its last words (all in ${relative(root, logFile)}):\n${entry.output.trim().split('\n').slice(-8).join('\n')}`,
    );
    if (/keyring|secret/i.test(entry.output))
      console.error('No usable OS keyring here? Run the demo inside a private one: scripts/with-keyring.sh npm run demo');
    void stopAll(1);
  });
  children.push(entry);
  return entry;
}

let stopping = false;
async function stopAll(exitCode = 0) {
  if (stopping) return;
  stopping = true;
  say('\nStopping the kiosk and the issuer …');
  // The kiosk first, so its last queued scans are written before the issuer goes away.
  for (const { name, child, exited } of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      console.error(`demo: the ${name} did not stop within 10 s; killing it`);
      child.kill('SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(timer);
  }
  say('Stopped. The demo data stays in demo-data/ until the next `npm run demo`.');
  process.exit(exitCode);
}
// Last resort if this script dies of a bug: the children run in their own process groups, so take them down.
process.on('exit', () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});
process.on('uncaughtException', (error) => {
  console.error(`demo: ${error.stack ?? error}`);
  void stopAll(1);
});
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

async function waitFor(what, check, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (stopping) return new Promise(() => {});
    const value = await check().catch(() => null);
    if (value) return value;
    if (Date.now() > until) {
      console.error(`demo: ${what} did not come up within ${timeoutMs / 1000} s`);
      return stopAll(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

say(`Starting the issuer on ${baseUrl} …`);
startChild(
  'issuer',
  issuerCli,
  ['serve', '--plain-http', '--host', HOST, '--port', String(issuerPort), '--data', issuerDir],
  join(demoDir, 'issuer.log'),
);
await waitFor('the issuer', async () => (await fetch(`${baseUrl}/.well-known/ticket-issuer.json`)).ok);

// Electron when its binary is installed and starts (the same check `npm start` makes); else the browser host.
let electron = { available: false, reason: 'skipped (--web)' };
if (!forceWeb && existsSync(startJs)) {
  const { locateElectronBinary, checkElectronRuns } = await import(pathToFileURL(startJs).href);
  const located = locateElectronBinary();
  electron = located.available ? await checkElectronRuns(located.path) : located;
}

let kioskUrl = null;
/** The browser host's launch URL for the person running the demo, and the demo's own session for its terminal scanner. */
let kioskLaunchUrl = null;
let kioskCookie = null;
if (electron.available) {
  say('Starting the kiosk (Electron) …');
  startChild('kiosk', startJs, [`--user-data-dir=${kioskDir}`], join(demoDir, 'kiosk.log'));
} else {
  const kioskPort = await freePort(preferredKioskPort);
  say(`Starting the kiosk in the browser host (Electron: ${electron.reason}) …`);
  const kiosk = startChild(
    'kiosk',
    kioskCli,
    ['web', '--host', HOST, '--port', String(kioskPort), '--data', kioskDir],
    join(demoDir, 'kiosk.log'),
  );
  // Its stdout says where it listens and prints a one-time launch URL (if it cannot start, e.g. without a keyring, the exit handler says why).
  const printed = await waitFor('the kiosk', async () => /^\s+(http:\/\/\S+\?token=\S+)$/m.exec(kiosk.output)?.[1] ?? null);
  kioskUrl = /running at (http:\/\/\S+)/.exec(kiosk.output)[1];
  // The demo spends that one on its own session (the terminal scanner below calls the kiosk API),
  // and asks the running host for another, for the browser: `ticket-kiosk web --print-url`.
  const { openSession } = await import(pathToFileURL(join(root, 'dist', 'main', 'web-host', 'launch.js')).href);
  kioskCookie = await openSession(printed);
  kioskLaunchUrl = (await run(process.execPath, [kioskCli, 'web', '--print-url', '--data', kioskDir], { cwd: root })).stdout.trim();
}

const ticketsUrl = pathToFileURL(ticketsHtml).href;
say(`
================================================================
 Demo running: issuer ${baseUrl}, event "Demo Night" (${event.eid})
================================================================
 1. Open the kiosk:  ${
   kioskLaunchUrl
     ? `${kioskLaunchUrl}
    (a one-time launch URL, for 15 minutes; another: npx ticket-kiosk web --print-url --data demo-data/kiosk)`
     : 'the Electron window'
 }
 2. Open the codes:  ${ticketsUrl}
    (print it, or show it on another screen; each card says what the kiosk should do)
 3. Scan #s (the setup code) first, then tickets, with a USB scanner in keyboard mode.${
   kioskUrl && process.stdin.isTTY
     ? `
    No scanner? Type a card's number here and press Enter (s = setup code, c = calibration, 1, 2, …):
    it is sent to the kiosk as a scan and the kiosk screen shows the verdict.`
     : ''
 }
 4. Watch it live: ${baseUrl}/admin  (admin token: ${adminToken})
 5. Try while it runs (another terminal):
      npx ticket-issuer ticket revoke ${issued[0].tid} --data demo-data/issuer
      npx ticket-issuer checkins export --event ${event.eid} --data demo-data/issuer
 Logs: demo-data/issuer.log, demo-data/kiosk.log.   Ctrl+C stops everything.
`);

// ---------- a scanner for people without one (browser host only) ----------
if (kioskUrl && process.stdin.isTTY) {
  const byNumber = new Map(codes.map((c) => [c.n, c]));
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: 'scan> ' });
  // readline takes Ctrl+C from the terminal itself: stop as if the signal had come.
  rl.on('SIGINT', () => void stopAll(0));
  rl.on('close', () => void stopAll(0));
  rl.prompt();
  rl.on('line', async (line) => {
    const typed = line.trim();
    if (typed !== '') {
      const entry = byNumber.get(typed);
      if (!entry && /^\d+$/.test(typed)) {
        say(`there is no card #${typed} (s, c, 1 … ${codes.length - 2})`);
        return rl.prompt();
      }
      const text = entry?.code ?? typed;
      try {
        // The same call the kiosk page makes for a keyboard-wedge scan; the page shows the verdict it pushes.
        const response = await fetch(new URL('api/kiosk/scan', kioskUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: kioskCookie },
          body: JSON.stringify([text]),
        });
        const answer = await response.json();
        say(describe(answer, entry));
      } catch (error) {
        say(`could not reach the kiosk: ${error.message}`);
      }
    }
    rl.prompt();
  });
}

function describe(answer, entry) {
  const label = entry ? `#${entry.n} ${entry.holder}: ` : '';
  if (!answer.ok) return `${label}the kiosk refused the call: ${answer.error?.message ?? 'unknown error'}`;
  const result = answer.value;
  if (result.type === 'verdict') {
    const v = result.verdict;
    // `offline` on an admit means the issuer could not be asked: the check-in is queued until it is back.
    return `${label}${v.kind === 'admit' ? `ADMIT${v.offline ? ' (offline: queued for the issuer)' : ''}` : `REFUSE (${v.reason})`}`;
  }
  if (result.type === 'enrolled') return `${label}kiosk enrolled for "${result.event_name}"`;
  if (result.type === 'calibrated') return `${label}scanner calibrated: the kiosk screen shows the Scanner check`;
  if (result.type === 'confirm_re_enroll') return `${label}the kiosk asks whether to switch events: answer on its screen`;
  return `${label}${result.type}${result.message ? `: ${result.message}` : ''}`;
}

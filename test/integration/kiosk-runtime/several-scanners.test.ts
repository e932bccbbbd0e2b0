/**
 * Several scanners on one kiosk (docs/kiosk.md "Several scanners"), through
 * the kiosk runtime as both hosts run it: two HID-POS scanners send their
 * report streams at the same time, and each scan is decided on its own lane
 * (an entry lane and an exit lane), with the lane on its verdict. Lanes come
 * from the configuration file, or from the Setup screen's mapping by
 * calibration code, which is kept in kiosk.db across a restart and a re-plug.
 * node-hid is the one stand-in (no USB here); the keyring, SQLite and the
 * issuer's HTTP server (loopback) are real.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';
import { SecretStore } from '../../../main/kiosk/store/api-key-store.js';
import type { HidDeviceInfo } from '../../../main/kiosk/scanner/node-hid-boundary.js';
import { CALIBRATION_CODE, type Verdict } from '../../../protocol/index.js';
import type { KioskState } from '../../../renderer/kiosk-bridge-types.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { FakeNodeHid, posScanner, waitFor } from '../../support/unit/fake-node-hid.js';
import { newlandHidPosReports, standardHidPosReports } from '../../support/unit/hid-pos-reports.js';

const KEYRING_SERVICE = `ticket-kiosk-lanes-test-${process.pid}`;
/** Generous: the machine may be running other suites alongside. */
const WAIT_MS = 15_000;

/** Lane 1's scanner: a Honeywell with a USB serial number. */
const honeywell: HidDeviceInfo = { ...posScanner, path: '/dev/hidraw3', serialNumber: '21045B0123' };
/** Lane 2's scanner: a Newland without a serial number (matched by ids and port). */
const newland: HidDeviceInfo = {
  ...posScanner,
  vendorId: 0x1eab,
  productId: 0x1d10,
  manufacturer: 'Newland',
  product: 'FM430',
  path: '/dev/hidraw4',
  serialNumber: '',
};

let issuer: LoopbackIssuer;
let dataDir: string;
let runtime: KioskRuntime | null = null;
let log: string[] = [];

beforeEach(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('The kiosk runtime keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
  issuer = await new LoopbackIssuer().start();
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-lanes-'));
  log = [];
});

afterEach(async () => {
  await runtime?.close();
  runtime = null;
  await new SecretStore({ serviceName: KEYRING_SERVICE }).deleteAll().catch(() => 0);
  await issuer.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(hid: FakeNodeHid): Promise<KioskRuntime> {
  runtime = await startKioskRuntime({
    dataDir,
    keyringService: KEYRING_SERVICE,
    hidScanners: true,
    hid: hid.api(),
    core: { autoDrain: false, onlineBudgetMs: 800, heartbeatIntervalMs: 0 },
    log: (line) => log.push(line),
  });
  return runtime;
}

function handleAt(hid: FakeNodeHid, path: string) {
  const handle = hid.opened.filter((each) => each.path === path && !each.closed).at(-1);
  if (!handle) throw new Error(`no open device at ${path}`);
  return handle;
}

/** Two report streams at once: report 1 of each, then report 2 of each, … (two people at two lanes). */
function sendInterleaved(streams: Array<{ send: (report: Uint8Array) => void; reports: Uint8Array[] }>): void {
  const longest = Math.max(...streams.map((stream) => stream.reports.length));
  for (let index = 0; index < longest; index++) {
    for (const stream of streams) {
      const report = stream.reports[index];
      if (report) stream.send(report);
    }
  }
}

async function stateWhen(kiosk: KioskRuntime, what: string, holds: (state: KioskState) => boolean): Promise<KioskState> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const state = await kiosk.core.getState();
    if (holds(state)) return state;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const verdictOf = (state: KioskState, tid: string): Verdict | undefined =>
  state.last_verdicts.find((verdict) => verdict.ticket?.tid === tid);

/** The `action` of every check-in request the kiosk sent for `tid`. */
function actionsSentFor(tid: string): unknown[] {
  return issuer
    .checkInRequests()
    .filter((each) => (each.body as { tid?: string }).tid === tid)
    .map((each) => (each.body as { action?: unknown }).action);
}

/** The issuer is back: the queue goes out, each scan with the action its lane decided. */
async function sendQueue(kiosk: KioskRuntime): Promise<void> {
  issuer.down = false;
  await kiosk.core.drain();
}

async function enrollThenGoOffline(kiosk: KioskRuntime): Promise<void> {
  expect((await kiosk.core.scan(issuer.setupCode())).type).toBe('enrolled');
  // Offline: each lane's own rules decide (an exit lane lets out, an entry lane admits by the offline policy).
  issuer.down = true;
}

describe('several scanners on one kiosk', () => {
  it('lanes from the configuration file: two report streams at once, each scan decided and shown on its own lane', async () => {
    writeFileSync(
      join(dataDir, 'kiosk-config.json'),
      JSON.stringify({
        lanes: [
          { label: 'North entry', direction: 'entry', scanner: { vendor: '0c2e', product: '0b87', serial: '21045B0123' } },
          { label: 'North exit', direction: 'exit', scanner: { vendor: '1eab', product: '1d10', path: '/dev/hidraw4' } },
        ],
        window_lane: 1,
      }),
    );
    const hid = new FakeNodeHid();
    hid.plug(honeywell);
    hid.plug(newland);
    const kiosk = await start(hid);
    await waitFor('both scanners to be read', () => kiosk.scanner?.connected.length === 2, WAIT_MS);
    await enrollThenGoOffline(kiosk);

    const entering = issuer.issueTicket();
    const leaving = issuer.issueTicket();
    sendInterleaved([
      { send: (report) => handleAt(hid, honeywell.path!).sendReport(report), reports: standardHidPosReports(`${entering.code}\r`) },
      { send: (report) => handleAt(hid, newland.path!).sendReport(report), reports: newlandHidPosReports(`${leaving.code}\r`) },
    ]);
    const state = await stateWhen(kiosk, 'both verdicts', (s) => !!verdictOf(s, entering.tid) && !!verdictOf(s, leaving.tid));

    expect(verdictOf(state, entering.tid)).toMatchObject({ kind: 'admit', lane: 'lane-1', offline: true });
    expect(verdictOf(state, leaving.tid)).toMatchObject({ kind: 'exit', lane: 'lane-2', offline: true });
    await sendQueue(kiosk);
    expect(actionsSentFor(entering.tid)).toEqual(expect.arrayContaining(['entry']));
    expect(new Set(actionsSentFor(entering.tid))).toEqual(new Set(['entry']));
    expect(new Set(actionsSentFor(leaving.tid))).toEqual(new Set(['exit']));
    issuer.down = true;
    expect(state.lanes).toMatchObject({
      source: 'file',
      window_lane: 'lane-1',
      mapping: null,
      lanes: [
        { id: 'lane-1', label: 'North entry', direction: 'entry', own_direction: true, connected: true },
        { id: 'lane-2', label: 'North exit', direction: 'exit', own_direction: true, connected: true },
      ],
    });
    // The kiosk's own direction is unchanged: a keyboard-wedge scan from the window goes to lane 1.
    expect(state.direction).toBe('entry');
    const third = issuer.issueTicket();
    const fromWindow = await kiosk.core.scan(third.code);
    expect(fromWindow).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', lane: 'lane-1' } });
    // The file's lanes are not changed from the screens.
    await kiosk.core.configureLanes({ action: 'clear' });
    expect((await kiosk.core.getState()).lanes?.lanes).toHaveLength(2);
  });

  it('mapped on Setup by scanning the calibration code with each scanner; kept across a restart, a re-plug, and told when missing', async () => {
    const hid = new FakeNodeHid();
    hid.plug(honeywell);
    hid.plug(newland);
    let kiosk = await start(hid);
    await waitFor('both scanners to be read', () => kiosk.scanner?.connected.length === 2, WAIT_MS);
    await enrollThenGoOffline(kiosk);

    await kiosk.core.configureLanes({
      action: 'map',
      lanes: [
        { label: 'Lane 1', direction: null },
        { label: 'Exit', direction: 'exit' },
      ],
    });
    expect((await kiosk.core.getState()).lanes?.mapping).toEqual({ step: 1, of: 2, label: 'Lane 1', problem: null });
    // Lane 1's scanner is the Newland.
    for (const report of newlandHidPosReports(`${CALIBRATION_CODE}\r`)) handleAt(hid, newland.path!).sendReport(report);
    await stateWhen(kiosk, 'lane 2 to be asked for', (s) => s.lanes?.mapping?.step === 2);
    // The same scanner again is refused: one scanner, one lane.
    for (const report of newlandHidPosReports(`${CALIBRATION_CODE}\r`)) handleAt(hid, newland.path!).sendReport(report);
    await stateWhen(kiosk, 'the repeat to be refused', (s) => s.lanes?.mapping?.problem === 'already_mapped');
    // A calibration code typed into the window cannot tell its scanner.
    await kiosk.core.scan(CALIBRATION_CODE);
    expect((await kiosk.core.getState()).lanes?.mapping).toMatchObject({ step: 2, problem: 'window' });
    for (const report of standardHidPosReports(`${CALIBRATION_CODE}\r`)) handleAt(hid, honeywell.path!).sendReport(report);
    const mapped = await stateWhen(kiosk, 'the mapping to end', (s) => s.lanes !== null && s.lanes?.mapping === null);
    expect(mapped.lanes).toMatchObject({
      source: 'setup',
      lanes: [
        { id: 'lane-1', label: 'Lane 1', direction: 'entry', own_direction: false, scanner: 'Newland FM430 (1eab:1d10)', connected: true },
        {
          id: 'lane-2',
          label: 'Exit',
          direction: 'exit',
          own_direction: true,
          scanner: 'Honeywell Voyager 1470g (0c2e:0b87)',
          connected: true,
        },
      ],
    });

    // A restart: the lanes come back from kiosk.db.
    await kiosk.close();
    kiosk = await start(hid);
    await waitFor('both scanners to be read again', () => kiosk.scanner?.connected.length === 2, WAIT_MS);
    expect((await kiosk.core.getState()).lanes?.lanes.map((lane) => lane.label)).toEqual(['Lane 1', 'Exit']);

    // The exit lane's scanner is unplugged: the state and the log say so.
    hid.unplug(honeywell.path!);
    const missing = await stateWhen(kiosk, 'the missing scanner', (s) => s.lanes?.lanes[1]?.connected === false);
    expect(missing.lanes?.lanes[0]?.connected).toBe(true);
    expect(log).toContain('Lane Exit: its scanner is missing; it keeps its lane when plugged in again.');

    // Plugged into another port: found by its serial number, still the exit lane.
    hid.plug({ ...honeywell, path: '/dev/hidraw9' });
    await stateWhen(kiosk, 'the scanner back', (s) => s.lanes?.lanes[1]?.connected === true);
    const leaving = issuer.issueTicket();
    for (const report of standardHidPosReports(`${leaving.code}\r`)) handleAt(hid, '/dev/hidraw9').sendReport(report);
    const state = await stateWhen(kiosk, 'the exit verdict', (s) => !!verdictOf(s, leaving.tid));
    expect(verdictOf(state, leaving.tid)).toMatchObject({ kind: 'exit', lane: 'lane-2' });
    await sendQueue(kiosk);
    expect(new Set(actionsSentFor(leaving.tid))).toEqual(new Set(['exit']));

    // Forgotten: one door again.
    await kiosk.core.configureLanes({ action: 'clear' });
    expect((await kiosk.core.getState()).lanes).toBeNull();
  });

  it('a configuration file with a mistake stops the start, naming the field', async () => {
    writeFileSync(join(dataDir, 'kiosk-config.json'), JSON.stringify({ lanes: [{ label: 'A', direction: 'sideways' }, { label: 'B' }] }));
    await expect(start(new FakeNodeHid())).rejects.toThrow(/lanes\[0\]\.direction must be "entry" or "exit"/);
    // The same file's other section (docs/kiosk.md "Revocation list") is read and checked at start too.
    writeFileSync(join(dataDir, 'kiosk-config.json'), JSON.stringify({ revocations: { sync_every_seconds: 5 } }));
    await expect(start(new FakeNodeHid())).rejects.toThrow(/revocations\.sync_every_seconds must be a whole number from 10 to 3600/);
  });
});

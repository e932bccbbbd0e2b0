/**
 * A keyboard-mode scanner read over HID also types its scan into the window
 * (the OS still gets its keystrokes). The kiosk runtime as the Electron shell
 * and the web host run it: HID reports through the scanner manager into the
 * core, and the page's scan call as IPC delivers it. One scan must be one
 * check-in and one verdict. node-hid is the one stand-in (no USB here); the
 * keyring is the real one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';
import { SecretStore } from '../../../main/kiosk/store/api-key-store.js';
import { typedAsBootReports } from '../../support/unit/keyboard-scanner.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { FakeNodeHid, keyboardScanner, waitFor } from '../../support/unit/fake-node-hid.js';

const KEYRING_SERVICE = `ticket-kiosk-echo-test-${process.pid}`;
let issuer: LoopbackIssuer;
let dataDir: string;
let runtime: KioskRuntime;
const hid = new FakeNodeHid();

beforeAll(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('The kiosk runtime keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
  issuer = await new LoopbackIssuer().start();
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-echo-'));
  hid.plug(keyboardScanner);
  runtime = await startKioskRuntime({
    dataDir,
    keyringService: KEYRING_SERVICE,
    hidScanners: true,
    knownScanners: [{ vendorId: keyboardScanner.vendorId, productId: keyboardScanner.productId }],
    hid: hid.api(),
    core: { autoDrain: false, onlineBudgetMs: 800 },
    log: () => undefined,
  });
  await waitFor('the keyboard-mode scanner to be opened', () => hid.opened.length === 1);
  expect((await runtime.core.scan(issuer.setupCode())).type).toBe('enrolled');
});

afterAll(async () => {
  await runtime?.close();
  await new SecretStore({ serviceName: KEYRING_SERVICE }).deleteAll().catch(() => 0);
  await issuer?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The scanner types `text`: its reports reach the HID reader, and the same keystrokes the window (the page's scan call). */
async function scanWithKeyboardScanner(text: string, windowFirst: boolean) {
  const typeIntoReader = () => {
    for (const report of typedAsBootReports(text)) hid.lastHandle().sendReport(report);
  };
  if (windowFirst) {
    const fromWindow = handleKioskCall(runtime.core, 'scan', [text]);
    typeIntoReader();
    return fromWindow;
  }
  typeIntoReader();
  return handleKioskCall(runtime.core, 'scan', [text]);
}

describe('a keyboard-mode scanner read over HID', () => {
  it.each([
    ['the reader first', false],
    ['the window first', true],
  ])('one scan is one check-in and one ADMIT, whichever copy comes first (%s)', async (_order, windowFirst) => {
    const before = issuer.checkInRequests().length;
    const { code, tid } = issuer.issueTicket();
    const answer = await scanWithKeyboardScanner(code, windowFirst);
    expect(answer).toMatchObject({ ok: true, value: { type: 'verdict', verdict: { kind: 'admit', ticket: { tid } } } });
    // Scans are handled one after another: once this one is answered, both copies have been.
    await runtime.core.scan('not a ticket');
    const state = await runtime.core.getState();
    // Not ADMIT and then "already admitted here" for the same person.
    expect(state.last_verdicts.filter((verdict) => JSON.stringify(verdict).includes(tid))).toEqual([
      expect.objectContaining({ kind: 'admit' }),
    ]);
    expect(issuer.checkInRequests().length - before).toBe(1);
  });
});

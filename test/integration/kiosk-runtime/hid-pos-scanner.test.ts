/**
 * A HID-POS scanner through the kiosk runtime (scanner manager → core), as
 * the Electron shell and the web host run it: the calibration code over
 * Newland's report layout reaches the diagnosis with the layout named, and a
 * scanner in SNAPI mode is named in the kiosk's state and log with the fix.
 * node-hid is the one stand-in (no USB here); the keyring and SQLite are real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';
import { NEWLAND_LAYOUT } from '../../../main/kiosk/scanner/hid-pos-layouts.js';
import { CALIBRATION_CODE } from '../../../protocol/index.js';
import { FakeNodeHid, posScanner, snapiScanner, waitFor } from '../../support/unit/fake-node-hid.js';
import { newlandHidPosReports } from '../../support/unit/hid-pos-reports.js';

const KEYRING_SERVICE = `ticket-kiosk-hidpos-test-${process.pid}`;
let runtime: KioskRuntime | null = null;
let dataDir: string | null = null;

afterEach(async () => {
  await runtime?.close();
  runtime = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

async function start(hid: FakeNodeHid, log: string[]): Promise<KioskRuntime> {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    throw new Error('The kiosk runtime keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
  dataDir = mkdtempSync(join(tmpdir(), 'kiosk-hidpos-'));
  runtime = await startKioskRuntime({
    dataDir,
    keyringService: KEYRING_SERVICE,
    hidScanners: true,
    hid: hid.api(),
    core: { autoDrain: false },
    log: (line) => log.push(line),
  });
  return runtime;
}

describe('a HID-POS scanner through the kiosk runtime', () => {
  it('the calibration code over Newland reports: diagnosis of the HID-POS path with the layout named', async () => {
    const hid = new FakeNodeHid();
    const newland = { ...posScanner, vendorId: 0x1eab, productId: 0x1d10, manufacturer: 'Newland', product: 'FM430' };
    hid.plug(newland);
    const kiosk = await start(hid, []);
    await waitFor('the scanner to be opened', () => hid.opened.length === 1);
    const reports = newlandHidPosReports(`${CALIBRATION_CODE}\r`);
    for (const report of reports) hid.lastHandle().sendReport(report);
    // The scan is handled asynchronously; the diagnosis appears in the state when it is done.
    let diagnosis = null;
    for (let tries = 0; tries < 250 && !diagnosis; tries++) {
      diagnosis = (await kiosk.core.getState()).calibration?.diagnosis ?? null;
      if (!diagnosis) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(diagnosis).toMatchObject({
      input_path: 'hid-pos',
      terminator: 'cr',
      hid_layout: NEWLAND_LAYOUT.name,
      translation: 'not_needed',
    });
  });

  it('a Zebra scanner in SNAPI mode: the state and the log name it, with the fix', async () => {
    const hid = new FakeNodeHid();
    hid.plug(snapiScanner);
    const log: string[] = [];
    const kiosk = await start(hid, log);
    const fix =
      "Scanner Zebra Technologies DS2208 (05e0:1900) is in SNAPI mode: scan the 'USB HID POS' programming code from its manual, or use keyboard mode.";
    expect((await kiosk.core.getState()).hid_scanner).toEqual({ state: 'disconnected', reason: 'unreadable_mode', message: fix });
    expect(log).toContain(fix);
  });
});

/**
 * Loads the real node-hid native module and enumerates real devices. This
 * machine has no USB scanner, so the manager must say "no scanner connected"
 * and keep running rather than crash. (Were a scanner plugged in, the
 * expectation follows from the same selection rule.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chooseScanner } from '../../../main/kiosk/scanner/device-selection.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layoutFromDescriptor } from '../../../main/kiosk/scanner/hid-pos-layouts.js';
import { loadNodeHid, readReportDescriptorFromSysfs } from '../../../main/kiosk/scanner/node-hid-boundary.js';
import { descriptor } from '../../support/unit/scanner-reports.js';
import { ScannerManager, type ScannerStatus } from '../../../main/kiosk/scanner/scanner-manager.js';

let manager: ScannerManager | null = null;
afterEach(async () => {
  await manager?.stop();
  manager = null;
});

describe('real node-hid', () => {
  it('loads and enumerates (an array, possibly empty)', async () => {
    const hid = await loadNodeHid();
    const devices = hid.devicesAsync ? await hid.devicesAsync() : hid.devices();
    expect(Array.isArray(devices)).toBe(true);
    for (const device of devices) expect(typeof device.vendorId).toBe('number');
    expect(typeof hid.HIDAsync?.open).toBe('function'); // node-hid 3: the async API the manager prefers
  });

  it('reads a hidraw report descriptor from sysfs, and nothing for other paths', async () => {
    const sysfs = mkdtempSync(join(tmpdir(), 'sysfs-'));
    try {
      const device = join(sysfs, 'class', 'hidraw', 'hidraw3', 'device');
      mkdirSync(device, { recursive: true });
      writeFileSync(join(device, 'report_descriptor'), descriptor('standard'));
      const read = await readReportDescriptorFromSysfs('/dev/hidraw3', sysfs);
      expect(read && layoutFromDescriptor(read)).toMatchObject({ reportId: 2, dataOffset: 5, aimOffset: 2 });
      expect(await readReportDescriptorFromSysfs('/dev/hidraw4', sysfs)).toBeNull(); // gone
      expect(await readReportDescriptorFromSysfs('1-2:1.0', sysfs)).toBeNull(); // libusb backend path
      expect(await readReportDescriptorFromSysfs('/dev/hidraw3/../../etc/passwd', sysfs)).toBeNull();
    } finally {
      rmSync(sysfs, { recursive: true, force: true });
    }
    // The loaded module offers it to the manager.
    expect(typeof (await loadNodeHid()).readReportDescriptor).toBe('function');
  });

  it('reports "no scanner connected" cleanly when none is plugged in', async () => {
    const hid = await loadNodeHid();
    const devices = hid.devicesAsync ? await hid.devicesAsync() : hid.devices();
    const statuses: ScannerStatus[] = [];
    manager = new ScannerManager({ hid, pollIntervalMs: 50, onStatus: (status) => statuses.push(status) });

    const status = await manager.start();
    if (chooseScanner(devices, []) === null) {
      expect(status).toEqual({
        state: 'disconnected',
        reason: 'no_scanner',
        message: expect.stringMatching(
          /^No scanner connected: no HID-POS scanner \(usage page 0x8C\) or listed scanner found\. A scanner in a serial \(COM port\) mode/,
        ),
      });
      // It keeps polling the real enumeration without failing or flapping.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(manager.status).toMatchObject({ state: 'disconnected', reason: 'no_scanner' });
      expect(statuses.map((s) => (s.state === 'connected' ? 'connected' : s.reason))).toEqual(['no_scanner']);
    } else {
      expect(['connected', 'disconnected']).toContain(status.state);
    }
  });
});
